import type { Agent } from 'undici';
import { ProviderFailure } from './provider-failure.js';

/** One request to a search provider, in its own wire format. */
export interface ProviderRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** What a provider answered: the status, `Retry-After`, and the body (at most the cap). */
export interface ProviderAnswer {
  status: number;
  retryAfter: string | null;
  text: string;
}

/** The host's own connections to the search providers (never the agents' egress proxy). */
export interface ProviderClient {
  /**
   * Send `request`; resolves with any status. Throws a {@link ProviderFailure} of class `server`
   * when the provider cannot be reached, passes `timeoutMs` in all, redirects, or sends more than
   * `maxBytes`.
   */
  send(request: ProviderRequest, limits: { timeoutMs: number; maxBytes: number }): Promise<ProviderAnswer>;
  close(): Promise<void>;
}

type Undici = typeof import('undici');

/**
 * A {@link ProviderClient} over undici (one keep-alive pool per provider origin, loaded at the first
 * search, as the LLM proxy does). It follows no redirect: a 3xx counts as the provider failing.
 */
export function createProviderClient(): ProviderClient {
  let opened: Promise<Agent> | undefined;
  const agent = () =>
    (opened ??= (import('undici') as Promise<Undici & { default?: Undici }>).then((loaded) => {
      // A bundle's dynamic import gives a CommonJS package only as `default` (see llm's upstream pool).
      const undici = loaded.default?.Agent ? loaded.default : loaded;
      return new undici.Agent({ connect: { timeout: 10_000 } });
    }));
  return {
    async send(request, { timeoutMs, maxBytes }) {
      const host = request.url.host;
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const answer = await (await agent()).request({
          origin: request.url.origin,
          path: `${request.url.pathname}${request.url.search}`,
          method: request.method,
          headers: { ...request.headers, 'accept-encoding': 'identity' },
          ...(request.body === undefined ? {} : { body: request.body }),
          signal,
        });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of answer.body as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > maxBytes) {
            answer.body.destroy();
            throw new ProviderFailure(
              'server',
              `${host} sent more than ${maxBytes} bytes; the answer was dropped`,
            );
          }
          chunks.push(chunk);
        }
        const status = answer.statusCode;
        if (status >= 300 && status < 400)
          throw new ProviderFailure(
            'server',
            `${host} answered ${status} (a redirect, not followed): check base_url`,
          );
        const retryAfter = answer.headers['retry-after'];
        return {
          status,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          text: Buffer.concat(chunks).toString('utf8'),
        };
      } catch (error) {
        if (error instanceof ProviderFailure) throw error;
        if (signal.aborted)
          throw new ProviderFailure('server', `${host} did not answer within ${timeoutMs / 1000} s`, {
            cause: error,
          });
        const reason = error instanceof Error ? error.message : String(error);
        throw new ProviderFailure('server', `${host} could not be reached (${reason})`, { cause: error });
      }
    },
    async close() {
      if (opened) await (await opened).destroy();
    },
  };
}
