import type { SessionCheck } from '../auth/index.js';
import { USAGE_LOG } from '../costs/index.js';
import type { HostFeature } from '../features/index.js';
import { serviceKey } from '../features/index.js';
import { allowedHosts } from './browser-guard.js';
import { registerCostSeries } from './cost-series-route.js';
import { type DashboardAsset, loadDashboardAssets } from './dashboard-assets.js';
import { registerDashboardEvents } from './dashboard-events.js';
import { registerDashboardRoutes } from './dashboard-routes.js';
import { dashboardSessionCheck, sessionCookieName } from './dashboard-session-check.js';
import { OperatorSessions } from './operator-sessions.js';

/** The dashboard's sessions, which route auth accepts for the operator (the root hands them over). */
export const DASHBOARD_SESSIONS = serviceKey<SessionCheck>('dashboard.sessions');

/**
 * The web dashboard (docs/dashboard.md): the built page at `/ui`, its sign-in, and one event stream;
 * everything else it shows comes from the operator API the CLI uses, called with the session cookie.
 * With `dashboard.enabled: false` nothing is served and no cookie is accepted.
 */
export function dashboardFeature(options: { assetsDir?: string } = {}): HostFeature {
  return {
    name: 'dashboard',
    needs: [USAGE_LOG],
    provides: [DASHBOARD_SESSIONS],
    build(context) {
      const { dashboard, mesh } = context.config;
      const ttlMs = dashboard.session_ttl_minutes * 60_000;
      const sessions = new OperatorSessions(context.clock, ttlMs);
      const hosts = allowedHosts(mesh.port, dashboard.allowed_hosts);
      const cookie = sessionCookieName(mesh.port);
      context.provide(
        DASHBOARD_SESSIONS,
        dashboard.enabled
          ? dashboardSessionCheck({ sessions, cookie, hosts })
          : { callerOf: () => undefined },
      );
      if (!dashboard.enabled) return {};
      const usage = context.need(USAGE_LOG);
      let assets: Promise<Map<string, DashboardAsset>> | undefined;
      return {
        routes(app) {
          registerDashboardRoutes(app, {
            sessions,
            cookie,
            hosts,
            ttlMs,
            assets: () => {
              assets ??= loadDashboardAssets(options.assetsDir);
              return assets;
            },
          });
          registerDashboardEvents(app, context.events);
          registerCostSeries(app, usage, context.clock);
        },
      };
    },
  };
}
