export { digestMatches, generateToken, parseBearer, TOKEN_BYTES, tokenDigest } from './bearer-token.js';
export { errorFromBody } from './error-from-body.js';
export { refuseFrameworkError, registerErrorHandling } from './error-handling.js';
export { findFreePort, findFreePorts } from './free-port.js';
export {
  type AnswerSchema,
  createJsonClient,
  type JsonAnswer,
  type JsonClient,
  type JsonClientOptions,
  type JsonRequest,
  parseAnswer,
} from './json-client.js';
export { parseRequest } from './parse-request.js';
