import type { ProviderAnswer } from './provider-call.js';
import { ProviderFailure } from './provider-failure.js';
import type { SearchAdapter } from './search-adapter.js';

const MESSAGE_MAX_CHARS = 200;

/**
 * The failure an answer's status means, or undefined for a 2xx: the adapter's reading first (Brave's
 * 422 for a bad key, SearXNG's 403 for JSON not enabled), then 401/403 a refused key (`auth`), 402
 * `billing`, 429 `rate` (with its Retry-After), 5xx `server`, any other status `request`.
 */
export function providerFailureOf(
  adapter: SearchAdapter,
  answer: ProviderAnswer,
  scrub: (text: string) => string,
): ProviderFailure | undefined {
  const { status } = answer;
  if (status >= 200 && status < 300) return undefined;
  const said = scrub(answer.text.replace(/\s+/g, ' ').trim().slice(0, MESSAGE_MAX_CHARS));
  const explained = adapter.explain?.(status, answer.text);
  if (explained) return new ProviderFailure(explained.failure, explained.reason);
  const tail = said ? `: ${said}` : '';
  if (status === 401 || status === 403)
    return new ProviderFailure('auth', `refused its key (${status}${tail})`);
  if (status === 402) return new ProviderFailure('billing', `answered 402 (payment required${tail})`);
  if (status === 429) {
    const retryAfterMs = retryAfter(answer.retryAfter);
    return new ProviderFailure('rate', `answered 429 (rate limited${tail})`, {
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    });
  }
  if (status >= 500) return new ProviderFailure('server', `answered ${status}${tail}`);
  return new ProviderFailure('request', `answered ${status}${tail}`);
}

/** `Retry-After` in seconds, in ms; undefined when absent or not a number of seconds. */
function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
