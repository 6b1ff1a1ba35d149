import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { OpenLegionError } from '@openlegion/protocol';

export interface OutboundAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
}

/** Response headers worth handing back (the rest is transport detail). */
const KEPT_HEADERS = ['content-type', 'content-length', 'location', 'etag', 'last-modified', 'retry-after'];

/**
 * One HTTP(S) request to `url`, connecting to `address` — the address the egress policy checked, so
 * no second DNS answer can send it elsewhere — with TLS still verified against the URL's host name.
 * The answer's body is capped at `maxBytes`; past `timeoutMs` the request is given up.
 */
export function outboundRequest(options: {
  url: URL;
  address: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
  maxBytes: number;
}): Promise<OutboundAnswer> {
  const { url, address } = options;
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    const family = address.includes(':') ? 6 : 4;
    if ((lookupOptions as { all?: boolean }).all)
      (callback as (e: null, a: unknown[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      { method: options.method, headers: options.headers, lookup, timeout: options.timeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        response.on('data', (chunk: Buffer) => {
          if (size >= options.maxBytes) {
            truncated = true;
            return;
          }
          const room = options.maxBytes - size;
          if (chunk.length > room) truncated = true;
          chunks.push(chunk.subarray(0, room));
          size += Math.min(chunk.length, room);
        });
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const name of KEPT_HEADERS) {
            const value = response.headers[name];
            if (typeof value === 'string') headers[name] = value;
          }
          resolve({
            status: response.statusCode ?? 0,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
            truncated,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(
        new OpenLegionError(
          'MESH_HTTP_FAILED',
          `${url.host} did not answer within ${options.timeoutMs / 1000} s`,
          {
            details: { host: url.host },
          },
        ),
      ),
    );
    request.on('error', (error) =>
      reject(
        error instanceof OpenLegionError
          ? error
          : new OpenLegionError('MESH_HTTP_FAILED', `${url.host} failed: ${error.message}`, {
              details: { host: url.host },
            }),
      ),
    );
    request.end(options.body);
  });
}
