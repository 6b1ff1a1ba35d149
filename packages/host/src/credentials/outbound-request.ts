import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isOpenLegionError, OpenLegionError } from '@openlegion/protocol';

export interface OutboundAnswer {
  status: number;
  /** The kept headers, as the server sent them (not yet scrubbed). */
  headers: Record<string, string>;
  /** The answer's `content-encoding`, '' when none. */
  contentEncoding: string;
  /** At most `readBytes` of the body (not yet scrubbed). */
  body: Buffer;
  /** The body went on past `readBytes` (the rest was not read). */
  cut: boolean;
}

/** Response headers worth handing back (the rest is transport detail). */
const KEPT_HEADERS = ['content-type', 'content-length', 'location', 'etag', 'last-modified', 'retry-after'];

/**
 * One HTTP(S) request to `url`, connecting to `address` — the address the egress policy checked, so
 * no second DNS answer can send it elsewhere — with TLS still verified against the URL's host name.
 * At most `readBytes` of the body are read; then the connection is closed, so an endless answer
 * holds nothing. Past `timeoutMs` in all (not just idle) the request is given up.
 */
export function outboundRequest(options: {
  url: URL;
  address: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
  readBytes: number;
}): Promise<OutboundAnswer> {
  const { url, address } = options;
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    const family = address.includes(':') ? 6 : 4;
    if ((lookupOptions as { all?: boolean }).all)
      (callback as (e: null, a: unknown[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const failed = (message: string, cause?: unknown) =>
    new OpenLegionError('MESH_HTTP_FAILED', `${url.host} ${message}`, { cause, details: { host: url.host } });
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(
      () => request.destroy(failed(`did not answer within ${options.timeoutMs / 1000} s`)),
      options.timeoutMs,
    );
    const settle = (outcome: () => void) => {
      clearTimeout(deadline);
      outcome();
    };
    let request: ReturnType<typeof send>;
    try {
      request = send(url, { method: options.method, headers: options.headers, lookup }, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = (cut: boolean) => {
          const headers: Record<string, string> = {};
          for (const name of KEPT_HEADERS) {
            const value = response.headers[name];
            if (typeof value === 'string') headers[name] = value;
          }
          settle(() =>
            resolve({
              status: response.statusCode ?? 0,
              headers,
              contentEncoding: response.headers['content-encoding'] ?? '',
              body: Buffer.concat(chunks),
              cut,
            }),
          );
        };
        response.on('data', (chunk: Buffer) => {
          const room = options.readBytes - size;
          if (room < 0) return; // already cut; the socket is being closed
          chunks.push(chunk.subarray(0, room));
          size += Math.min(chunk.length, room);
          if (chunk.length > room) {
            size = options.readBytes + 1;
            finish(true);
            request.destroy();
          }
        });
        response.on('end', () => finish(false));
        response.on('error', (error) => settle(() => reject(failed(`failed: ${error.message}`, error))));
      });
    } catch (error) {
      // Node refuses some headers before sending (e.g. a character a header may not hold).
      settle(() => reject(failed(`was not asked: ${(error as Error).message}`, error)));
      return;
    }
    request.on('error', (error) =>
      settle(() => reject(isOpenLegionError(error) ? error : failed(`failed: ${error.message}`, error))),
    );
    request.end(options.body);
  });
}
