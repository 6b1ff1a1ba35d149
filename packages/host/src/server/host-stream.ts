import { setMaxListeners } from 'node:events';
import { openSseResponse, type SseResponse } from '@openlegion/infra/sse';
import type { MeshConfig } from '@openlegion/protocol';
import type { FastifyReply } from 'fastify';
import type { AgentSlots } from './agent-slots.js';

/**
 * Tie a long-lived SSE stream (a watch, a subscription) to the host's life: the host stopping ends
 * it, and the client leaving stops it too without leaving a listener on the host's stop signal.
 * `stopListening` detaches whatever feeds the stream; it runs once either way.
 */
export function endWithHost(stream: SseResponse, stopping: AbortSignal, stopListening: () => void): void {
  const end = () => {
    stopListening();
    stream.end();
  };
  stream.signal.addEventListener(
    'abort',
    () => {
      stopListening();
      stopping.removeEventListener('abort', end);
    },
    { once: true },
  );
  // One listener per open stream: at most agents × limits.streams_per_agent, not a leak.
  setMaxListeners(0, stopping);
  stopping.addEventListener('abort', end, { once: true });
}

export interface HostStreamOptions {
  /** The calling agent: its stream takes one of its slots. The operator's take none. */
  agent: string | undefined;
  slots: AgentSlots;
  limits: MeshConfig['limits'];
}

/**
 * Open an SSE answer for a host route: the agent's stream slot is taken first (a refusal is still
 * an ordinary 429 answer) and given back however the stream ends; a reader that leaves more than
 * `limits.stream_backlog_bytes` unsent is dropped, told why in a last `event: error` frame.
 */
export function openHostStream(reply: FastifyReply, options: HostStreamOptions): SseResponse {
  const release = options.agent === undefined ? () => {} : options.slots.acquire(options.agent);
  reply.hijack();
  reply.raw.once('close', release);
  // A client gone before this point emits no 'close' any more.
  if (reply.raw.destroyed) release();
  try {
    return openSseResponse(reply.raw, {
      maxBacklogBytes: options.limits.stream_backlog_bytes,
      backlogField: 'limits.stream_backlog_bytes',
      onTooSlow: (error) =>
        reply.log.warn(
          { agent: options.agent, ...(error.details as object) },
          'dropped a stream reader that fell behind',
        ),
    });
  } catch (error) {
    release();
    throw error;
  }
}
