// Group commit, shared by both dialects: many callers' writes go to the database as one batch.
//
//   const joins = new Batcher<EntryRow, InsertEntryResult>((rows) => writeInOneTransaction(rows), { maxBatch: 500 });
//   const result = await joins.add(row); // settles after the transaction holding `row` has committed
//   await joins.drain();                 // on close: everything queued is written
//
// How it behaves:
// - Items added during one event-loop turn, and all items added while a batch is being written, form
//   the next batch (at most `maxBatch` items). One batch is in flight at a time, so batches are
//   written in the order their items were added.
// - With `lingerMs`, a batch about to start stays open for further turns as long as each turn brought
//   new items, up to `lingerMs` after it opened. Why: libuv (1.45+, Node 20) accepts one new connection
//   per event-loop turn. While a synchronous writer (SQLite) commits in every turn, a burst of new
//   connections (browsers, one join each) is accepted one per commit, and every batch holds one join.
//   Lingering through the short turns that accept and read them lets one commit hold many. A lone item
//   waits one extra turn (microseconds): the turn after it brought nothing new.
// - `write(batch)` does the work in one transaction and returns one result per item, in order. Each
//   `add()` promise resolves with its item's result only after `write` resolved, i.e. after the commit.
// - When `write` throws for a batch, every item of it is retried alone (`write([item])`), so one bad
//   row fails only its own caller; that caller's promise rejects with the error of its lone retry.
//   Unless `fatal(err)` returns an error: then every item of the batch rejects with it at once, nothing
//   retried (the database is down: retrying row by row would wait out the connection timeout per row).
//
// Extending it (an outbox row, a join ordinal): do the extra work inside your `write`, in the same
// transaction, and return it in the item's result. The batcher knows nothing about SQL.

/** Writes one batch in one transaction; resolves with one result per item, in the items' order. */
export type BatchWriter<T, R> = (batch: T[]) => Promise<R[]> | R[];

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface BatcherOptions {
  /** Most items in one batch (default: no limit). */
  maxBatch?: number;
  /** Classifies a batch's error: an error returned fails the whole batch with it, undefined retries item by item. */
  fatal?: (err: unknown) => unknown;
  /** Most milliseconds a batch stays open while each event-loop turn brings new items (default 0: one turn). */
  lingerMs?: number;
  /**
   * Start writing the next batch before settling the callers of the one just written (default false).
   * For a writer whose `write` sends its first statement and returns (PostgreSQL): the database works
   * on the next batch while the callers of the last one answer their requests, instead of after.
   * Not for a writer that does its work synchronously (SQLite): the callers would wait for it.
   */
  overlap?: boolean;
}

/** A queue that writes what was added together, one batch (one transaction) at a time. */
export class Batcher<T, R> {
  private queue: Waiting<T, R>[] = [];
  private running: Promise<void> | null = null;
  private readonly maxBatch: number;
  private readonly fatal: (err: unknown) => unknown;
  private readonly lingerMs: number;
  private readonly overlap: boolean;

  constructor(
    private readonly write: BatchWriter<T, R>,
    options: BatcherOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? Number.POSITIVE_INFINITY;
    this.fatal = options.fatal ?? (() => undefined);
    this.lingerMs = options.lingerMs ?? 0;
    this.overlap = options.overlap ?? false;
    if (!(this.maxBatch >= 1)) throw new RangeError('maxBatch must be at least 1');
    if (!(this.lingerMs >= 0)) throw new RangeError('lingerMs must be at least 0');
  }

  /** Queues one item; resolves with its result once the batch holding it has been written. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // setImmediate: let every request of this event-loop turn join the batch first.
      this.running ??= new Promise<void>((started) => this.collect(started)).then(() => this.run());
    });
  }

  /** Calls `started` after this turn, or after the turns that keep bringing items (lingerMs). */
  private collect(started: () => void): void {
    if (this.lingerMs === 0) {
      setImmediate(started);
      return;
    }
    const until = performance.now() + this.lingerMs;
    let seen = 0;
    const turn = () => {
      const n = this.queue.length;
      if (n > seen && n < this.maxBatch && performance.now() < until) {
        seen = n;
        setImmediate(turn);
      } else started();
    };
    setImmediate(turn);
  }

  /** Items waiting or being written right now. */
  get pending(): number {
    return this.queue.length;
  }

  /** Resolves once every item added so far has been written (or failed). */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    let settle: (() => void) | undefined;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.maxBatch);
        // With overlap: the next batch's write has started (its synchronous part ran), now the last
        // batch's callers. Without, writeBatch settled them itself before it returned, as they come
        // before the next batch.
        const writing = this.writeBatch(batch, this.overlap);
        settle?.();
        settle = await writing;
      }
    } finally {
      settle?.();
      this.running = null;
    }
  }

  /**
   * Writes `batch` (retrying item by item, see above) and settles its callers, or with `defer`
   * answers what settles them.
   */
  private async writeBatch(batch: Waiting<T, R>[], defer: boolean): Promise<(() => void) | undefined> {
    let settle: () => void;
    try {
      const results = await this.write(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error(`batch writer returned ${results.length} results for ${batch.length} items`);
      settle = () => {
        for (const [i, w] of batch.entries()) w.resolve(results[i]!);
      };
    } catch (err) {
      const whole = this.fatal(err);
      if (whole !== undefined || batch.length === 1) {
        settle = () => {
          for (const w of batch) w.reject(whole ?? err);
        };
      } else {
        // One bad item must not fail its neighbours: each one alone, in order.
        for (const w of batch) await this.writeBatch([w], false);
        return undefined;
      }
    }
    if (defer) return settle;
    settle();
    return undefined;
  }
}
