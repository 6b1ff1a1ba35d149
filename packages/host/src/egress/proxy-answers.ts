import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Answer on a raw socket (a CONNECT before its tunnel exists) and close it. A line break in `text`
 * cannot end the head early: the body goes after it with its length, and header values are ours.
 */
export function answerSocket(
  socket: Duplex,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (socket.destroyed || socket.writableEnded) return;
  const body = text.endsWith('\n') ? text : `${text}\n`;
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'content-type: text/plain; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** Answer a plain request that failed inside the proxy: 500 if nothing was sent yet, else cut it. */
export function failRequest(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  res.writeHead(500).end(`egress: internal error (${message})\n`);
}
