import type { IncomingMessage } from 'node:http';

/** The outcome of reading a request body: absent, parsed JSON, or text that is not JSON. */
export type RequestBody =
  | { kind: 'empty' }
  | { kind: 'json'; value: unknown }
  | { kind: 'malformed'; error: Error };

/** Reads the whole body and parses it as JSON. */
export async function readJsonBody(req: IncomingMessage): Promise<RequestBody> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (error) {
    return { kind: 'malformed', error: error instanceof Error ? error : new Error(String(error)) };
  }
}
