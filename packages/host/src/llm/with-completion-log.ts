/** A body being streamed: a web ReadableStream or a Node stream (undici's body); both async-iterable. */
export type ChunkSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/**
 * `source`'s chunks as a web stream, passed on one by one, unbuffered, so `onSettled` runs once
 * when the body has been read to the end, failed or been cancelled. A cancel (the client left)
 * ends the source, which for undici's body aborts the upstream call. With `errorFrame`, a source
 * that fails ends the stream with that text rather than an error.
 */
export function withCompletionLog(
  source: ChunkSource,
  onSettled: () => void,
  errorFrame?: (error: unknown) => string,
): ReadableStream<Uint8Array> {
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    onSettled();
  };
  const chunks = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
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
}
