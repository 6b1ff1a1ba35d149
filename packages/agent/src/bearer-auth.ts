import { createHash, timingSafeEqual } from 'node:crypto';
import { errorBody } from '@openlegion/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';

const BEARER_PATTERN = /^Bearer\s+(\S+)\s*$/i;

const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * A fastify `onRequest` hook admitting only `Authorization: Bearer <token>`. Digests are compared,
 * not the tokens, so the comparison is constant-time whatever the length of the guess.
 */
export function bearerAuth(token: string) {
  const expected = sha256(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const presented = BEARER_PATTERN.exec(request.headers.authorization ?? '')?.[1];
    if (presented === undefined) {
      await reply.code(401).send(errorBody('AUTH_MISSING', 'send Authorization: Bearer <MESH_TOKEN>'));
      return;
    }
    if (!timingSafeEqual(sha256(presented), expected)) {
      await reply.code(401).send(errorBody('AUTH_INVALID', 'the bearer token is not valid for this agent'));
    }
  };
}
