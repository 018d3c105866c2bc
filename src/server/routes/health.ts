// Liveness and readiness, for load balancers and process supervisors (no auth, no session):
//   GET /healthz   200 while the process answers HTTP at all (never touches the database)
//   GET /readyz    200 when every readiness check passes; 503 service_unavailable + Retry-After naming
//                  the failing check otherwise (database down, locked, a standby; shutting down; …)
import type { Polka } from 'polka';
import type { ServerResponse } from 'node:http';
import { unavailable } from '../../core/errors.js';
import { databaseReadiness } from '../../core/health.js';
import type { Deps, Req } from '../context.js';
import { send } from '../http.js';
import { Readiness } from '../readiness.js';

export function healthRoutes(app: Polka<Req>, deps: Deps): Readiness {
  const readiness = new Readiness([{ name: 'database', check: databaseReadiness(deps.store) }, ...(deps.readiness ?? [])]);
  app.get('/healthz', (_req, res) => send(res, 200, 'ok', { status: 'ok' }));
  app.get('/readyz', async (_req: Req, res: ServerResponse) => {
    res.setHeader('Cache-Control', 'no-store');
    const report = await readiness.report();
    if (!report.ready) {
      const why = report.checks
        .filter((c) => !c.ok)
        .map((c) => `${c.name}: ${c.reason}`)
        .join('; ');
      throw unavailable(`Not ready: ${why}`, report.retryAfterSeconds);
    }
    send(res, 200, 'ready', { status: 'ready', checks: report.checks });
  });
  return readiness;
}
