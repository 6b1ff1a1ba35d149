import { TRACE_HEADER } from '@openlegion/protocol';
import type { Dispatcher } from 'undici';
import { ToolFailure } from '../tool-failure.js';
import { egressRefusalIn, refusalReadingClientFactory } from './proxy-refusal.js';

/** Proxy settings in the shape of the usual environment variables. */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  /** Comma-separated hosts (and `.domain` suffixes) reached directly, as in NO_PROXY. */
  noProxy?: string;
}

/** The egress proxy the environment names (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, either case). */
export function proxyFromEnv(env: NodeJS.ProcessEnv = process.env): ProxySettings {
  const pick = (name: string) => env[name] || env[name.toLowerCase()] || undefined;
  const settings: ProxySettings = {};
  const httpProxy = pick('HTTP_PROXY');
  const httpsProxy = pick('HTTPS_PROXY');
  const noProxy = pick('NO_PROXY');
  if (httpProxy) settings.httpProxy = httpProxy;
  if (httpsProxy) settings.httpsProxy = httpsProxy;
  if (noProxy) settings.noProxy = noProxy;
  return settings;
}

/** One fetched document, as bytes: what it is and how to decode it is decided by its reader. */
export interface FetchedPage {
  /** The address after redirects. */
  url: string;
  status: number;
  contentType: string;
  bytes: Buffer;
  /** The body was longer than the cap and was cut at `bytes.length`. */
  truncated: boolean;
  /** The size the server declared (Content-Length), if it did. */
  declaredBytes: number | null;
}

export interface PageFetcherOptions {
  proxy: ProxySettings;
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
}

/**
 * GETs pages through the egress proxy (when one is set) with a time limit and a size cap. The turn's
 * trace id goes to the proxy with each tunnel it asks for, so the host's trace shows which sites a
 * turn reached; the site itself never sees it (it travels outside the tunnel).
 */
export class PageFetcher {
  /** One dispatcher per trace (a turn): the proxy's CONNECT headers are fixed per dispatcher. */
  #dispatcher: { traceId: string | undefined; dispatcher: Promise<Dispatcher> } | undefined;

  constructor(readonly options: PageFetcherOptions) {}

  async fetch(url: string, signal: AbortSignal, traceId?: string): Promise<FetchedPage> {
    const { fetch } = await loadUndici();
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    let response: Awaited<ReturnType<typeof fetch>>;
    try {
      response = await fetch(url, {
        dispatcher: await this.#dispatcherFor(traceId),
        signal: AbortSignal.any([signal, timeout]),
        redirect: 'follow',
        headers: {
          'user-agent': this.options.userAgent,
          accept: 'text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5',
        },
      });
      const { bytes, truncated } = await readCapped(response.body, this.options.maxBytes);
      const length = Number(response.headers.get('content-length') ?? Number.NaN);
      return {
        url: response.url || url,
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        bytes,
        truncated,
        declaredBytes: Number.isSafeInteger(length) && length >= 0 ? length : null,
      };
    } catch (error) {
      if (signal.aborted) throw error;
      const refusal = egressRefusalIn(error);
      if (refusal) throw new ToolFailure(`${url}: ${refusal.message}`);
      if (timeout.aborted)
        throw new ToolFailure(`${url}: no answer within ${this.options.timeoutMs / 1000} s`);
      throw new ToolFailure(`${url}: could not fetch (${reasonOf(error)})`);
    }
  }

  async close(): Promise<void> {
    const current = this.#dispatcher;
    this.#dispatcher = undefined;
    if (current) await (await current.dispatcher).close();
  }

  /** undici loads on first use: agents that never fetch a page do not pay for it at start-up. */
  #dispatcherFor(traceId: string | undefined): Promise<Dispatcher> {
    if (this.#dispatcher && this.#dispatcher.traceId === traceId) return this.#dispatcher.dispatcher;
    const previous = this.#dispatcher?.dispatcher;
    // The last turn's connections close once their requests are done.
    void previous?.then((dispatcher) => dispatcher.close()).catch(() => {});
    const dispatcher = (async () => {
      const { Agent, EnvHttpProxyAgent, Pool } = await loadUndici();
      const { httpProxy, httpsProxy, noProxy } = this.options.proxy;
      if (!httpProxy && !httpsProxy) return new Agent();
      return new EnvHttpProxyAgent({
        ...(httpProxy ? { httpProxy } : {}),
        ...((httpsProxy ?? httpProxy) ? { httpsProxy: httpsProxy ?? httpProxy } : {}),
        noProxy: noProxy ?? '',
        // So a refused tunnel says why (see refusalReadingClientFactory), for http and https alike.
        clientFactory: refusalReadingClientFactory(Pool),
        ...(traceId ? { headers: { [TRACE_HEADER]: traceId } } : {}),
      });
    })();
    this.#dispatcher = { traceId, dispatcher };
    return dispatcher;
  }
}

type Undici = typeof import('undici');

/**
 * undici, loaded on first use. It is CommonJS: a bundler's dynamic import may hand back its exports
 * under `default` instead of as named exports, so both shapes are accepted.
 */
async function loadUndici(): Promise<Undici> {
  const loaded = (await import('undici')) as Undici & { default?: Undici };
  return typeof loaded.Agent === 'function' ? loaded : (loaded.default ?? loaded);
}

async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  if (!body) return { bytes: Buffer.alloc(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), truncated: false };
    chunks.push(value);
    size += value.length;
    if (size >= maxBytes) {
      await reader.cancel();
      return { bytes: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
    }
  }
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as (Error & { code?: string }) | undefined;
  if (cause) return cause.code ? `${cause.code}: ${cause.message}` : cause.message;
  return error.message;
}
