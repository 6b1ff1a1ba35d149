import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { EGRESS_REASON_HEADER, egressReasonHeaderValue } from '@openlegion/protocol';

/**
 * The headers of an answer the proxy gives itself: `text` also as {@link EGRESS_REASON_HEADER},
 * since clients drop the body of a failed CONNECT but read its headers.
 */
export function answerHeaders(text: string, headers: Record<string, string> = {}): Record<string, string> {
  return { ...headers, [EGRESS_REASON_HEADER]: egressReasonHeaderValue(text) };
}

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
    ...Object.entries(answerHeaders(text, headers)).map(([name, value]) => `${name}: ${value}`),
    'content-type: text/plain; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** Answer a plain (non-CONNECT) request from the proxy itself: `text` as body and reason header. */
export function answerRequest(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  const line = text.trimEnd();
  res.writeHead(status, answerHeaders(line, headers)).end(`${line}\n`);
}

/** Answer a plain request that failed inside the proxy: 500 if nothing was sent yet, else cut it. */
export function failRequest(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  answerRequest(res, 500, `egress: internal error (${message})`);
}
