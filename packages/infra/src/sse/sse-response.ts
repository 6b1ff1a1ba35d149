import type { ServerResponse } from 'node:http';
import { OpenLegionError } from '@openlegion/protocol';
import { type Clock, systemClock } from '../clock/index.js';

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

/**
 * Unsent bytes a reader may leave queued in memory by default (past what the kernel's socket
 * buffers hold): four of the largest blackboard values.
 */
export const DEFAULT_SSE_BACKLOG_BYTES = 256 * 1024;
/**
 * How long a dropped reader has to take its last frame before the socket is destroyed: long
 * enough for a reader that was only slow, short enough that the queued bytes are soon freed.
 */
export const SSE_DROP_GRACE_MS = 5_000;

export interface SseOptions {
  /** Aborted when the client leaves first (or is dropped as too slow); made here when absent. */
  controller?: AbortController;
  /**
   * Unsent bytes (the response's and its socket's queue) the reader may leave before it is
   * dropped: told why with a last `event: error` frame (MESH_STREAM_TOO_SLOW), then cut off.
   */
  maxBacklogBytes?: number;
  /** The mesh.yaml field that sets `maxBacklogBytes`, named in the error the dropped reader gets. */
  backlogField?: string;
  /** Told once when the reader is dropped as too slow (to log it). */
  onTooSlow?: (error: OpenLegionError) => void;
  /** Times the grace a dropped reader gets to take its last frame. */
  clock?: Pick<Clock, 'setTimeout'>;
}

/** An open `text/event-stream` answer; `signal` aborts when the client goes away first. */
export interface SseResponse {
  /** Write one frame (a no-op once the response has ended, the client left or was dropped). */
  send(frame: SseFrame | string): void;
  end(): void;
  /** Bytes written and not yet taken by the client. */
  readonly backlog: number;
  /** Resolves once the client has taken what was written, or the stream is over. */
  drained(): Promise<void>;
  readonly signal: AbortSignal;
}

/**
 * Start an SSE answer on a raw node response (with fastify: `reply.hijack()` first, then
 * `reply.raw`). Headers go out at once and nothing is buffered on the way. A reader that does not
 * keep up is dropped once its backlog passes `maxBacklogBytes`, so a client that never reads
 * cannot grow the server's memory: each stream holds at most that much, for a few seconds more.
 */
export function openSseResponse(raw: ServerResponse, options: SseOptions = {}): SseResponse {
  const controller = options.controller ?? new AbortController();
  const maxBacklog = options.maxBacklogBytes ?? DEFAULT_SSE_BACKLOG_BYTES;
  const clock = options.clock ?? systemClock;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    // Proxies between the client and us must not buffer events.
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  let dropped = false;
  raw.on('close', () => {
    if (!raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  const writable = () => !dropped && !raw.writableEnded && !raw.destroyed;
  const drop = () => {
    dropped = true;
    const error = new OpenLegionError(
      'MESH_STREAM_TOO_SLOW',
      `the stream's reader left ${raw.writableLength} bytes unsent, more than ` +
        `${options.backlogField ?? 'the bound'} (${maxBacklog}) allows; read the stream as it comes and reconnect`,
      { details: { backlog_bytes: raw.writableLength, max: maxBacklog } },
    );
    controller.abort(error);
    options.onTooSlow?.(error);
    // Last in the queue: a reader that was only slow still learns why its stream ended.
    raw.end(encodeSseFrame({ event: 'error', data: JSON.stringify(error.toJSON()) }));
    const grace = clock.setTimeout(() => raw.destroy(), SSE_DROP_GRACE_MS);
    raw.once('close', () => grace.cancel());
  };
  return {
    send(frame) {
      if (!writable()) return;
      raw.write(typeof frame === 'string' ? frame : encodeSseFrame(frame));
      if (raw.writableLength > maxBacklog) drop();
    },
    end() {
      if (writable()) raw.end();
    },
    get backlog() {
      return raw.writableLength;
    },
    drained() {
      if (raw.writableLength === 0 || !writable()) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          raw.off('drain', done);
          raw.off('close', done);
          resolve();
        };
        raw.on('drain', done);
        raw.on('close', done);
      });
    },
    signal: controller.signal,
  };
}
