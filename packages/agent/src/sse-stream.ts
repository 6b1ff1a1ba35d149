import { type ChatEvent, formatSseEvent } from '@openlegion/protocol';
import type { FastifyReply } from 'fastify';

/** An open `text/event-stream` answer; `signal` aborts when the client goes away first. */
export interface SseStream {
  emit(event: ChatEvent): void;
  end(): void;
  readonly signal: AbortSignal;
}

/** Take the raw response over from fastify and start an SSE stream on it. */
export function openSseStream(reply: FastifyReply, controller = new AbortController()): SseStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    // Proxies between the CLI and the host must not buffer deltas.
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  raw.on('close', () => {
    if (!raw.writableFinished) controller.abort();
  });
  const writable = () => !raw.writableEnded && !raw.destroyed;
  return {
    emit(event) {
      if (writable()) raw.write(formatSseEvent(event));
    },
    end() {
      if (writable()) raw.end();
    },
    signal: controller.signal,
  };
}
