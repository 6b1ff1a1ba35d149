export { type BearerFront, type BearerFrontRequest, startBearerFront } from './bearer-front.js';
export {
  type FakeOAuth,
  type FakeOAuthOptions,
  type FakeOAuthRequest,
  startFakeOAuth,
} from './fake-oauth-server.js';
