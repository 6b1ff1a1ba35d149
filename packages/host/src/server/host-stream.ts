import type { SseResponse } from '@openlegion/infra/sse';

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
  stopping.addEventListener('abort', end, { once: true });
}
