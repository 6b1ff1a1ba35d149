export { DASHBOARD_ASSETS_DIR } from './dashboard-assets.js';
export { DASHBOARD_SESSIONS, dashboardFeature } from './dashboard-feature.js';
export { CSRF_HEADER, sessionCookieName } from './dashboard-session-check.js';
