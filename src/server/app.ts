// createApp(deps) → a Polka app with every route, ready to mount on any server (tests use port 0).
import polka, { type Polka } from 'polka';
import type { Deps, Req } from './context.js';
import { onError, onNoMatch } from './http.js';
import { openapiRoutes } from './openapi/index.js';
import { accessLog } from './log.js';
import { apiGuard, baseHeaders, requireSession } from './middleware.js';
import { checkParams } from './params.js';
import { authRoutes } from './routes/auth.js';
import { entryRoutes } from './routes/entries.js';
import { healthRoutes } from './routes/health.js';
import { joinRoutes } from './routes/join.js';
import { keyRoutes } from './routes/keys.js';
import { lifecycleRoutes } from './routes/lifecycle.js';
import { subscriberRoutes } from './routes/subscriber.js';
import { subscriberPages } from './pages/subscriber.js';
import { projectRoutes } from './routes/projects.js';
import { settingsRoutes } from './routes/settings.js';
import { hostedRoutes } from './routes/hosted.js';
import { importRoutes } from './routes/import.js';
import { surfaceRoutes } from './routes/surface.js';
import { templateRoutes } from './routes/templates.js';
import { webhookRoutes } from './routes/webhooks.js';
import { dashboardRoutes } from './static.js';

export function createApp(deps: Deps): Polka<Req> {
  const app = polka<Req>({ onError: onError as never, onNoMatch });
  app.use(baseHeaders);
  if (deps.options.logRequests) app.use(accessLog);
  app.use(checkParams);
  app.use(apiGuard(deps));
  healthRoutes(app, deps);
  openapiRoutes(app, deps);
  joinRoutes(app, deps);
  surfaceRoutes(app, deps);
  hostedRoutes(app, deps);
  subscriberRoutes(app, deps);
  subscriberPages(app, deps);
  authRoutes(app, deps);
  // Everything else under /api needs a session.
  app.use('/api/project', requireSession);
  projectRoutes(app, deps);
  settingsRoutes(app, deps);
  keyRoutes(app, deps);
  entryRoutes(app, deps);
  importRoutes(app, deps);
  lifecycleRoutes(app, deps);
  webhookRoutes(app, deps);
  templateRoutes(app, deps);
  dashboardRoutes(app);
  return app;
}
