import type { ServerResponse } from 'node:http';

/** One server-sent event. `data` may span lines; each becomes its own `data:` line. */
export interface SseFrame {
  event?: string;
  id?: string;
  data: string;
}

/** The wire text of one frame, ending in the blank line that dispatches it. */
export function encodeSseFrame(frame: SseFrame): string {
  const head = `${frame.event === undefined ? '' : `event: ${frame.event}\n`}${
    frame.id === undefined ? '' : `id: ${frame.id}\n`
  }`;
  return `${head}${frame.data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`;
}

/** An open `text/event-stream` answer; `signal` aborts when the client goes away first. */
export interface SseResponse {
  /** Write one frame (a no-op once the response has ended or the client left). */
  send(frame: SseFrame | string): void;
  end(): void;
  readonly signal: AbortSignal;
}

/**
 * Start an SSE answer on a raw node response (with fastify: `reply.hijack()` first, then
 * `reply.raw`). Headers go out at once and nothing is buffered on the way.
 */
export function openSseResponse(raw: ServerResponse, controller = new AbortController()): SseResponse {
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    // Proxies between the client and us must not buffer events.
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  raw.on('close', () => {
    if (!raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  const writable = () => !raw.writableEnded && !raw.destroyed;
  return {
    send(frame) {
      if (writable()) raw.write(typeof frame === 'string' ? frame : encodeSseFrame(frame));
    },
    end() {
      if (writable()) raw.end();
    },
    signal: controller.signal,
  };
}
