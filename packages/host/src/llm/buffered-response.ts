/** The bytes of responses whose body was read whole before they were handed on. */
const wholeBodies = new WeakMap<Response, Uint8Array>();

/**
 * A response whose body is already in memory (a non-stream answer, read whole before the first
 * byte goes to the client). Its `body` reads as usual; {@link wholeBody} gives the bytes to those
 * that know, so they skip the stream machinery.
 */
export function bufferedResponse(
  bytes: Uint8Array,
  status: number,
  headers: Record<string, string>,
): Response {
  const response = new Response(bytes, { status, headers });
  wholeBodies.set(response, bytes);
  return response;
}

/** The bytes of a {@link bufferedResponse} whose body nobody has read yet; undefined for others. */
export function wholeBody(response: Response): Uint8Array | undefined {
  return response.bodyUsed ? undefined : wholeBodies.get(response);
}
