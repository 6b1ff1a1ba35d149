import { EventEmitter } from 'node:events';

/**
 * An abort flag for one call, with the shape undici's `request` takes as its signal (an emitter
 * of 'abort' with `aborted` and `reason`), so it goes to the upstream call as it is. An
 * AbortController costs an EventTarget per call, and adding and removing its listeners is slower
 * than an emitter's.
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

/** What a call can be aborted by: a CallAbort, or an AbortSignal (callers outside the routes); undici takes both. */
export type CallSignal = CallAbort | AbortSignal;
