/** A streamed answer about to be handed on: a fetch Response, or undici's status and body. */
export interface StreamSource {
  status: number;
  headers: Record<string, string>;
  /** A web ReadableStream or a Node stream (undici's body): both are async-iterable. */
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null;
}

/**
 * A response of `source`'s status, headers and body, so `onSettled` runs once when the body has
 * been read to the end, failed or been cancelled. Chunks pass through one by one, unbuffered; a
 * cancel (the client left) ends the source, which for undici's body aborts the upstream call.
 */
export function withCompletionLog(
  source: StreamSource,
  onSettled: () => void,
  errorFrame?: (error: unknown) => string,
): Response {
  if (!source.body) {
    onSettled();
    return new Response(null, { status: source.status, headers: source.headers });
  }
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    onSettled();
  };
  const chunks = (source.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await chunks.next();
        if (done) {
          settle();
          controller.close();
          return;
        }
        controller.enqueue(value);
      } catch (error) {
        settle();
        if (!errorFrame) return controller.error(error);
        controller.enqueue(new TextEncoder().encode(errorFrame(error)));
        controller.close();
      }
    },
    async cancel() {
      settle();
      await chunks.return?.();
    },
  });
  return new Response(body, { status: source.status, headers: source.headers });
}
