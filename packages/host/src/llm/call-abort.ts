import { EventEmitter } from 'node:events';

/**
 * An abort flag for one call, with the shape undici's `request` takes as its signal (an emitter
 * of 'abort' with `aborted` and `reason`). An AbortController costs an EventTarget per call, and
 * each proxied call needed two (the client leaving, the upstream attempt); this costs a plain
 * emitter.
 */
export class CallAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  /** Abort once with `reason`; later calls change nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** What a call can be aborted by: a CallAbort, or an AbortSignal (callers outside the routes). */
export type CallSignal = CallAbort | AbortSignal;

/** Run `listener` once when `signal` aborts; the returned function stops listening. */
export function onAbort(signal: CallSignal, listener: () => void): () => void {
  if (signal instanceof CallAbort) {
    signal.once('abort', listener);
    return () => signal.removeListener('abort', listener);
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
