/**
 * The same response, its body re-wrapped so `onSettled` runs once when the body has been read to
 * the end, failed or been cancelled. Chunks pass through one by one, unbuffered.
 */
export function withCompletionLog(
  response: Response,
  onSettled: () => void,
  errorFrame?: (error: unknown) => string,
): Response {
  const source = response.body;
  if (!source) {
    onSettled();
    return response;
  }
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    onSettled();
  };
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
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
    async cancel(reason) {
      settle();
      await reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
