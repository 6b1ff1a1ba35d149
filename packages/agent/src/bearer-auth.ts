import { digestMatches, parseBearer, tokenDigest } from '@openlegion/infra/http';
import { errorBody } from '@openlegion/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A fastify `onRequest` hook admitting only `Authorization: Bearer <token>`. Digests are compared,
 * not the tokens, so the comparison is constant-time whatever the length of the guess.
 */
export function bearerAuth(token: string) {
  const expected = tokenDigest(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const presented = parseBearer(request.headers.authorization);
    if (presented === undefined) {
      await reply.code(401).send(errorBody('AUTH_MISSING', 'send Authorization: Bearer <MESH_TOKEN>'));
      return;
    }
    if (!digestMatches(tokenDigest(presented), expected)) {
      await reply.code(401).send(errorBody('AUTH_INVALID', 'the bearer token is not valid for this agent'));
    }
  };
}
