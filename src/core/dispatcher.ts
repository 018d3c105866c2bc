// The outbox dispatcher: delivers after commit, never on the join path. It wakes when a commit wrote
// outbox rows (in-process notice) and polls every second (rows of other instances, due retries, work
// left by a crash). Each round fans new events out into deliveries (pages of 200) and claims due
// deliveries up to the free send slots, as leases: an instance that dies mid-send loses its lease
// after LEASE_MS and another instance (or this one after a restart) sends again — at least once.
// Memory stays flat however long the backlog: nothing is loaded beyond one page and the slots.
//
// The slots are shared between destinations (each webhook, each project's email) and projects by the
// rules of fair-share.ts, so one tenant's receivers that never answer delay nobody else's deliveries. A
// claim looks at up to WALK destinations with pending deliveries, going on from where the last one
// stopped: its cost does not grow with the number of destinations waiting.
import {
  type ClaimedDelivery,
  type Destination,
  DISABLED,
  type DeliveryOutcome,
  DUE_START,
  type DueCursor,
  destinationOf,
} from '../db/outbox.js';
import type { Store } from '../db/store.js';
import { pickFair, type Shares, sharesFor } from './fair-share.js';
import { fanOutPlan } from './fanout.js';
import { idFloor } from './ids.js';
import { featureSettings } from './settings.js';
import type { Mailer } from './mailer.js';
import type { EmailTemplate, EmailVars } from './outbox.js';
import { effectiveTemplates, renderEmail } from './templates.js';
import { sendWebhook, signingSecrets, type AttemptResult } from './webhook-send.js';

/** Seconds to wait after each failed attempt: 10 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (≈ 27.6 h in all, 9 attempts). */
export const RETRY_SCHEDULE_SEC = [10, 60, 300, 1800, 7200, 18_000, 36_000, 36_000];
/** How long a claim holds before another dispatcher may take the row (env WAITLIST_OUTBOX_LEASE_SEC, default 60). */
export const LEASE_MS = Math.max(15, Number(process.env.WAITLIST_OUTBOX_LEASE_SEC) || 60) * 1000;
const FANOUT_PAGE = 200;
const PRUNE_AFTER_MS = 30 * 86_400_000;
// SQLite calls are synchronous: without this, a long backlog would be worked through in one go and
// requests (joins) would wait for it. Each page gives the event loop back.
const yieldToIo = () => new Promise<void>((r) => setImmediate(r));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const ROUND_GAP_MS = 25;
/** Destinations (webhooks, and projects' email) a claim looks at, each kind. */
const WALK = 64;
/** Destinations with due work a claim reads besides the walk's, and the claims in a row without due work that make one cold. */
const HOT = 64;
const HOT_MISSES = 8;

export interface DispatcherOptions {
  mailer: Mailer | null;
  allowPrivateWebhooks: boolean;
  /** Base of links in emails (dashboard link of notices). */
  publicUrl: string;
  retrySchedule?: number[];
  /** Deliveries in flight at once. */
  concurrency?: number;
  pollMs?: number;
  /** The first 30-day prune after start, in ms (then hourly); default 10 s. */
  firstPruneMs?: number;
  log?: (line: string) => void;
}

/** One attempt's result; `final`: not to be retried; `recipientRefused`: see MailResult. */
type Attempt = AttemptResult & { final?: boolean; recipientRefused?: boolean };

export class Dispatcher {
  private readonly schedule: number[];
  private readonly concurrency: number;
  private inflight = new Set<Promise<void>>();
  /** Sends in flight per destination, with its project. */
  private readonly busy = new Map<string, { projectId: string; n: number }>();
  /** Destinations whose last attempt failed, in order of last failure (fair-share.ts). */
  private readonly failing = new Set<string>();
  private readonly shares: Shares;
  /** Where the next claim's walk over destinations goes on from. */
  private cursor: DueCursor = DUE_START;
  /** Which walks came round since the current cycle began. */
  private cameRound = { hook: false, mail: false };
  /**
   * Destinations that had due work at the last claims, read at every claim whatever the walk's place
   * (at most HOT, the latest first): a busy receiver keeps its pace however many others wait.
   */
  private readonly hot = new Map<string, Destination & { misses: number }>();
  private running = false;
  private again = false;
  /** When the last round started (performance.now()). */
  private lastRound = Number.NEGATIVE_INFINITY;
  /** How soon after the last round started a wake may start the next (see wake). */
  private readonly wakeGapMs: number;
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];
  private readonly plan;

  constructor(
    private readonly store: Store,
    private readonly opts: DispatcherOptions,
  ) {
    this.schedule = opts.retrySchedule ?? RETRY_SCHEDULE_SEC;
    this.concurrency = opts.concurrency ?? 16;
    this.shares = sharesFor(this.concurrency);
    this.plan = fanOutPlan(Boolean(opts.mailer));
    this.wakeGapMs = store.dialect === 'pg' ? ROUND_GAP_MS : 0;
  }

  start() {
    this.store.onOutboxWrite(() => this.wake());
    this.timers.push(setInterval(() => this.wake(), this.opts.pollMs ?? 1000));
    // The 30-day prune: hourly, and once shortly after start, so a server restarted more often than
    // hourly (a deploy a day, a crash loop) still prunes.
    const prune = () => void this.store.events.prune(Date.now() - PRUNE_AFTER_MS).catch(() => undefined);
    this.timers.push(setInterval(prune, 3_600_000));
    this.timers.push(setTimeout(prune, this.opts.firstPruneMs ?? 10_000));
    for (const t of this.timers) t.unref();
    // What the previous process had claimed and not finished (it was killed mid-send) goes now, not
    // after the lease (SQLite; a no-op on PostgreSQL).
    void this.store.events
      .releaseClaims(Date.now(), LEASE_MS)
      .catch(() => 0)
      .finally(() => this.wake());
  }

  /**
   * Runs a round soon (coalesced: a wake during a round runs one more round). On PostgreSQL no
   * sooner than ROUND_GAP_MS after the last round started: under a stream of joins every commit wakes
   * us, and a commit that came just after a round would otherwise start another at once (about 60
   * rounds a second, each a fan-out and a claim query, beside the join batches on PostgreSQL's CPU:
   * +7.5 % joins/s with a webhook without them). On SQLite the same gap cost 11-12 % of those joins/s
   * (its rounds are synchronous work between the event loop's turns, not queries PostgreSQL runs
   * beside the batches), so there a round still starts at once (docs/performance.md, round
   * twenty-eight). A wake after a quiet spell runs at once on either.
   */
  wake() {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    const wait = this.lastRound + this.wakeGapMs - performance.now();
    if (wait > 0) setTimeout(() => void this.loop(), Math.ceil(wait));
    else setImmediate(() => void this.loop());
  }

  private async loop() {
    try {
      do {
        if (this.stopped) return;
        this.lastRound = performance.now();
        this.again = false;
        await this.fanOut();
        await this.claimAndSend();
        // Under a stream of joins every commit wakes us: rounds at most every ROUND_GAP_MS batch that
        // work (one fan-out per many joins) instead of running back to back beside the join path.
        await (this.again ? sleep(ROUND_GAP_MS) : yieldToIo());
      } while (this.again && !this.stopped);
    } catch (err) {
      this.opts.log?.(`outbox dispatcher: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
  }

  private async fanOut() {
    // A bounded number of pages per round, so sends are not starved by a huge backlog.
    for (let i = 0; i < 5; i++) {
      const n = await this.store.events.fanOut(FANOUT_PAGE, this.plan);
      if (n < FANOUT_PAGE) return;
      await yieldToIo();
    }
    this.again = true;
  }

  private async claimAndSend() {
    const free = this.concurrency - this.inflight.size;
    if (free <= 0 || this.stopped) return;
    const now = Date.now();
    const { rows, cursor, wrapped } = await this.store.events.dueCandidates(now, this.cursor, WALK, Math.min(this.shares.hard, free), [
      ...this.hot.values(),
    ]);
    this.cursor = cursor;
    this.noteHot(rows);
    const picked = pickFair(rows, free, this.shares, { busy: this.busy, failing: this.failing });
    const claimed = picked.length
      ? await this.store.events.claimPicked(
          picked.map((r) => r.id),
          now,
          LEASE_MS,
        )
      : [];
    for (const d of claimed) {
      const dest = destinationOf(d);
      const held = this.busy.get(dest);
      if (held) held.n++;
      else this.busy.set(dest, { projectId: d.projectId, n: 1 });
      const p: Promise<void> = this.deliver(d)
        .then(
          () => undefined,
          (err: Error) => this.opts.log?.(`delivery ${d.id}: ${err.message}`),
        )
        .finally(() => {
          const h = this.busy.get(dest);
          if (h && --h.n <= 0) this.busy.delete(dest);
          this.inflight.delete(p);
          this.wake();
        });
      this.inflight.add(p);
    }
    // Slots still free and destinations not looked at yet in this cycle of the walks: go on soon. Once
    // both walks have come round, the next cycle waits for a wake (a commit, a send done) or the poll.
    this.cameRound = { hook: this.cameRound.hook || wrapped.hook, mail: this.cameRound.mail || wrapped.mail };
    const cycleDone = this.cameRound.hook && this.cameRound.mail;
    if (cycleDone) this.cameRound = { hook: false, mail: false };
    if (claimed.length === free || !cycleDone) this.again = true;
  }

  /**
   * Keeps the destinations that had due rows in this claim hot; one that had none for HOT_MISSES claims
   * in a row (drained, or its retries not due yet) goes cold, and the walk finds it again.
   */
  private noteHot(rows: readonly { webhookId: string | null; projectId: string }[]) {
    const due = new Map<string, Destination>();
    for (const r of rows) due.set(destinationOf(r), { webhookId: r.webhookId, projectId: r.projectId });
    for (const [k, h] of this.hot) if (!due.has(k) && ++h.misses >= HOT_MISSES) this.hot.delete(k);
    for (const [k, d] of due) {
      this.hot.delete(k); // re-added last: the latest first to stay
      this.hot.set(k, { ...d, misses: 0 });
    }
    while (this.hot.size > HOT) this.hot.delete(this.hot.keys().next().value!);
  }

  /** Notes whether a destination answers: a failed attempt leaves it one slot until one succeeds. */
  private noteAttempt(d: ClaimedDelivery, ok: boolean) {
    const dest = destinationOf(d);
    this.failing.delete(dest); // re-added last: the set is in order of last failure
    if (ok) return;
    // Bounded (every claim sends the list): past 1,000 failing destinations the longest-failing one is
    // forgotten, and gets its share again until its next failure.
    if (this.failing.size >= 1_000) this.failing.delete(this.failing.values().next().value!);
    this.failing.add(dest);
  }

  /** Sends one claimed delivery now and records the outcome (used by the loop and by manual retry). */
  async deliver(d: ClaimedDelivery): Promise<DeliveryOutcome> {
    const result = d.kind === 'webhook' ? await this.sendHook(d) : await this.sendEmail(d);
    // A recipient the SMTP server refused says nothing against the server: the project's email keeps its share.
    if (!result.final) this.noteAttempt(d, result.ok || result.recipientRefused === true);
    const attempts = d.attempts + 1;
    const now = Date.now();
    let outcome: DeliveryOutcome;
    if (result.ok) {
      outcome = { status: 'delivered', attempts, lastStatusCode: result.statusCode, lastError: null, nextAttemptAt: null, clearData: true };
    } else {
      const wait = result.final ? undefined : this.schedule[attempts - 1];
      outcome =
        wait === undefined
          ? { status: 'failed', attempts, lastStatusCode: result.statusCode, lastError: result.error, nextAttemptAt: null, clearData: true }
          : {
              status: 'pending',
              attempts,
              lastStatusCode: result.statusCode,
              lastError: result.error,
              nextAttemptAt: now + wait * 1000,
              clearData: false,
            };
    }
    await this.store.events.finish(d.id, d.lease, outcome, now);
    return outcome;
  }

  private async sendHook(d: ClaimedDelivery): Promise<Attempt> {
    if (!d.webhook || d.payload === null || !d.eventId)
      return { ok: false, statusCode: null, error: 'webhook or event no longer exists', final: true };
    if (!d.webhook.enabled) return { ok: false, statusCode: null, error: DISABLED, final: true };
    return sendWebhook(d.webhook.url, signingSecrets(d.webhook), d.eventId, d.payload, this.opts.allowPrivateWebhooks);
  }

  private async sendEmail(d: ClaimedDelivery): Promise<Attempt> {
    const mailer = this.opts.mailer;
    if (!mailer) return { ok: false, statusCode: null, error: 'SMTP is not configured (--smtp-url)', final: true };
    if (!d.recipient || d.data === null) return { ok: false, statusCode: null, error: 'email has no recipient or data', final: true };
    const project = await this.store.projectByIdAny(d.projectId);
    if (!project) return { ok: false, statusCode: null, error: 'project no longer exists', final: true };
    const vars: EmailVars = { ...(JSON.parse(d.data) as EmailVars), projectName: project.name, dashboardUrl: `${this.opts.publicUrl}/` };
    if (d.type === 'digest') {
      // Sent to what the settings say now, not when the hour's first sign-up queued it.
      const s = featureSettings(project);
      if (s.notify !== 'hourly') return { ok: false, statusCode: null, error: `not sent: notify is now "${s.notify}"`, final: true };
      const recipient = d.recipient.trim().toLowerCase();
      if (!s.notifyEmails.some((a) => a.trim().toLowerCase() === recipient)) {
        return { ok: false, statusCode: null, error: 'not sent: the address is no longer in notifyEmails', final: true };
      }
      // A confirmed entry joined at most pendingPurgeDays before (+ a day: the purge runs hourly); an id's
      // time may be a millisecond off its createdAt (a second of slack each side).
      const [from, to] = [Number(vars.from), Number(vars.to)];
      const lookback = (s.pendingPurgeDays + 1) * 86_400_000;
      const ids = { from: idFloor('ent', from - lookback - 1000), to: idFloor('ent', to + 1000) };
      const { count, rows } = await this.store.events.signupsBetween(d.projectId, from, to, 100, ids);
      if (count === 0)
        return { ok: false, statusCode: null, error: "not sent: none of the hour's sign-ups is still on the list", final: true };
      vars.count = count;
      // Mustache has no plurals: the digest's default subject and text use these ("1 person", "3 people").
      vars.people = count === 1 ? '1 person' : `${count} people`;
      vars.newSignups = count === 1 ? '1 new sign-up' : `${count} new sign-ups`;
      vars.signups =
        rows.map((r) => (r.name ? `${r.email} (${r.name})` : r.email)).join('\n') +
        (count > rows.length ? `\n… and ${count - rows.length} more` : '');
    }
    const templates = effectiveTemplates(await this.store.events.templates(d.projectId));
    const t = templates[d.type as EmailTemplate];
    if (!t) return { ok: false, statusCode: null, error: `unknown email template ${d.type}`, final: true };
    const r = await mailer.send(d.recipient, renderEmail(t, vars), typeof vars.leaveUrl === 'string' ? vars.leaveUrl : null);
    return { ok: r.ok, statusCode: r.code, error: r.error, recipientRefused: r.recipientRefused };
  }

  /** Cheap count of undelivered work (for /readyz). */
  backlog(cap = 100_000) {
    return this.store.events.backlog(cap);
  }

  /** Stops waking; gives sends in flight up to `graceMs` to record their outcome (the rest are sent
   * again when their lease ends: at least once). */
  async stop(graceMs = 2000) {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    const grace = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([
      grace,
      (async () => {
        while (this.running) await new Promise((r) => setTimeout(r, 10));
        await Promise.allSettled([...this.inflight]);
      })(),
    ]);
  }
}
