import type { HostFeature } from '../features/index.js';
import { type OperatorRouteDeps, registerOperatorRoutes } from './operator-routes.js';

/** The operator API's own routes (`/api/status`, `/api/shutdown`) as a host feature. */
export function operatorFeature(options: OperatorRouteDeps): HostFeature {
  return { name: 'operator', routes: (app) => registerOperatorRoutes(app, options) };
}
