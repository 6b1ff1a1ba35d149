/**
 * An OK answer the proxy hands to the routes. Not a fetch `Response`: building one (and its
 * ReadableStream) for every whole answer was a large share of the proxy's CPU time per call.
 */
export interface LlmAnswer {
  status: number;
  contentType: string;
  /**
   * The whole body (a non-stream answer, read before the client gets a byte, so a body that breaks
   * off can still fail over), or a stream whose chunks pass through one by one, unbuffered.
   */
  body: Uint8Array | ReadableStream<Uint8Array>;
}

/** True when the answer is an SSE stream. */
export function isEventStream(contentType: string): boolean {
  return contentType.startsWith('text/event-stream');
}
