import type { FastifyReply } from 'fastify';
import { wholeBody } from '../llm/buffered-response.js';

/**
 * Send an upstream response's status and body through unbuffered. Only the content type is copied:
 * the proxy asks providers for no content-encoding, and hop-by-hop headers are not ours to forward.
 */
export function sendUpstream(reply: FastifyReply, upstream: Response): FastifyReply {
  const contentType = upstream.headers.get('content-type') ?? 'application/json';
  reply.code(upstream.status).header('content-type', contentType);
  if (contentType.startsWith('text/event-stream')) {
    reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
  }
  const whole = wholeBody(upstream);
  if (whole) return reply.send(Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength));
  return reply.send(upstream.body ?? '');
}
