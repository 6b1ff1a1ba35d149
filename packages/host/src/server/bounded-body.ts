import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AgentWriteRate, writeCost } from './agent-write-rate.js';

/**
 * Route options for a body that carries one capped value (a blackboard value, a pub/sub payload):
 * the request may be at most a few times the cap (room for JSON escapes and the other fields), so
 * a body far past it is refused from its `content-length` before a byte is read, and cut off at
 * the bound while it streams in. The host's general body limit (10 MiB, for long prompts) would
 * otherwise read and parse megabytes an agent sends only to be refused.
 *
 * With `writes`, an agent's write is also held to its write rate there, before its body is read
 * or parsed: a refused write costs the host next to nothing.
 *
 * @example app.post('/mesh/pubsub/publish', { config, ...boundedBody(cap, 'payload', 'limits.pubsub_payload_bytes') }, handler)
 */
export function boundedBody(
  capBytes: number,
  field: string,
  setting: string,
  writes?: AgentWriteRate,
): { bodyLimit: number; preParsing: (request: FastifyRequest, reply: FastifyReply) => Promise<void> } {
  const bodyLimit = capBytes * BODY_TO_VALUE_RATIO + FIELD_ROOM_BYTES;
  return {
    bodyLimit,
    preParsing: async (request, reply) => {
      const length = Number(request.headers['content-length']);
      if (Number.isFinite(length) && length > bodyLimit) {
        // The rest of the body is not read: the connection closes after the answer.
        void reply.header('connection', 'close');
        throw new OpenLegionError(
          'MESH_VALUE_TOO_LARGE',
          `${field}: the request is ${length} bytes; a ${field} is at most ${capBytes} bytes of JSON (${setting}), so the host reads at most ${bodyLimit}`,
          { details: { bytes: length, max: capBytes, field: setting } },
        );
      }
      if (writes && request.agent) writes.take(request.agent, writeCost(request.headers, bodyLimit));
    },
  };
}

/** JSON escapes (`\u00e9` for one character) can make a body several times its value. */
const BODY_TO_VALUE_RATIO = 4;
/** The other fields of the request (a topic, a version, a TTL). */
const FIELD_ROOM_BYTES = 4 * 1024;
