// Readiness: may this instance take traffic now? A list of named checks (the database always; other
// layers add theirs to Deps.readiness, e.g. an outbox backlog), run together with a time bound and
// cached for a second, so a load balancer polling /readyz from many places costs one probe a second.
import { DatabaseUnavailableError } from '../db/errors.js';

/** One named readiness check: resolves when fine; resolves with a reason string, or throws, when not. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<string | undefined>;
}

export interface CheckResult {
  name: string;
  ok: boolean;
  /** Why not, in words safe to show anyone (no host names, no SQL). */
  reason?: string;
  ms: number;
}

export interface ReadinessReport {
  ready: boolean;
  checks: CheckResult[];
  /** Seconds a caller should wait before asking again (the largest any failed check asked for). */
  retryAfterSeconds: number;
}

export const READY_CACHE_MS = 1_000;
export const CHECK_TIMEOUT_MS = 2_000;

export class Readiness {
  private cached: { at: number; report: Promise<ReadinessReport> } | undefined;

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly cacheMs = READY_CACHE_MS,
    private readonly timeoutMs = CHECK_TIMEOUT_MS,
  ) {}

  /** The current report: at most one probe per cache period, shared by every caller in that period. */
  report(): Promise<ReadinessReport> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at >= this.cacheMs) this.cached = { at: now, report: this.run() };
    return this.cached.report;
  }

  private async run(): Promise<ReadinessReport> {
    const results = await Promise.all(this.checks.map((c) => this.runOne(c)));
    const failed = results.filter((r) => !r.result.ok);
    return {
      ready: failed.length === 0,
      checks: results.map((r) => r.result),
      retryAfterSeconds: Math.max(1, ...failed.map((r) => r.retry)),
    };
  }

  private async runOne(c: ReadinessCheck): Promise<{ result: CheckResult; retry: number }> {
    const started = performance.now();
    const ms = () => Math.round((performance.now() - started) * 10) / 10;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${this.timeoutMs} ms`), this.timeoutMs);
    });
    try {
      const reason = await Promise.race([c.check(), timeout]);
      if (typeof reason === 'string') return { result: { name: c.name, ok: false, reason, ms: ms() }, retry: 1 };
      return { result: { name: c.name, ok: true, ms: ms() }, retry: 0 };
    } catch (err) {
      // Only our own reasons are shown; anything else may carry internals.
      const known = err instanceof DatabaseUnavailableError;
      if (!known) console.error(`readiness check ${c.name} failed: ${err instanceof Error ? err.name : 'error'}`);
      const reason = known ? err.message : 'the check failed';
      return { result: { name: c.name, ok: false, reason, ms: ms() }, retry: known ? err.retryAfterSeconds : 1 };
    } finally {
      clearTimeout(timer);
    }
  }
}
