export { loadOrCreateOperatorToken, OPERATOR_TOKEN_FILE } from './operator-token.js';
export {
  type Caller,
  type RouteAuth,
  type RouteAuthOptions,
  registerRouteAuth,
  requireAgent,
  type SessionCheck,
} from './route-auth.js';
export { TokenRegistry } from './token-registry.js';
