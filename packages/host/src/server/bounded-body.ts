import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyRequest } from 'fastify';

/**
 * Route options for a body that carries one capped value (a blackboard value, a pub/sub payload):
 * the request may be at most a few times the cap (room for JSON escapes and the other fields), so
 * a body far past it is refused from its `content-length` before a byte is read, and cut off at
 * the bound while it streams in. The host's general body limit (10 MiB, for long prompts) would
 * otherwise read and parse megabytes an agent sends only to be refused.
 *
 * @example app.post('/mesh/pubsub/publish', { config, ...boundedBody(cap, 'payload', 'limits.pubsub_payload_bytes') }, handler)
 */
export function boundedBody(
  capBytes: number,
  field: string,
  setting: string,
): { bodyLimit: number; preParsing: (request: FastifyRequest) => Promise<void> } {
  const bodyLimit = capBytes * BODY_TO_VALUE_RATIO + FIELD_ROOM_BYTES;
  return {
    bodyLimit,
    preParsing: async (request) => {
      const length = Number(request.headers['content-length']);
      if (Number.isFinite(length) && length > bodyLimit)
        throw new OpenLegionError(
          'MESH_VALUE_TOO_LARGE',
          `${field}: the request is ${length} bytes; a ${field} is at most ${capBytes} bytes of JSON (${setting}), so the host reads at most ${bodyLimit}`,
          { details: { bytes: length, max: capBytes, field: setting } },
        );
    },
  };
}

/** JSON escapes (`\u00e9` for one character) can make a body several times its value. */
const BODY_TO_VALUE_RATIO = 4;
/** The other fields of the request (a topic, a version, a TTL). */
const FIELD_ROOM_BYTES = 4 * 1024;
