import type { FastifyReply } from 'fastify';
import { isEventStream, type LlmAnswer } from './llm-answer.js';

/**
 * Send an upstream response's status and body through unbuffered. Only the content type is copied:
 * fetch has already decoded any content-encoding, and hop-by-hop headers are not ours to forward.
 */
export function sendUpstream(reply: FastifyReply, upstream: Response): FastifyReply {
  return sendAnswer(reply, {
    status: upstream.status,
    contentType: upstream.headers.get('content-type') ?? 'application/json',
    body: upstream.body ?? new Uint8Array(0),
  });
}

/**
 * Send the LLM proxy's answer: whole bytes at once, a stream chunk by chunk as it arrives. The
 * proxy asks providers for no content-encoding, so the body goes on as it came.
 */
export function sendAnswer(reply: FastifyReply, answer: LlmAnswer): FastifyReply {
  reply.code(answer.status).header('content-type', answer.contentType);
  if (isEventStream(answer.contentType)) {
    reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
  }
  const { body } = answer;
  if (body instanceof Uint8Array) {
    return reply.send(
      Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    );
  }
  return reply.send(body);
}
