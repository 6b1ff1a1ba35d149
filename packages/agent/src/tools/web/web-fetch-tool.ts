import { type Clock, systemClock } from '@openlegion/infra/clock';
import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import { fenceUntrusted, stripInvisible } from '../../untrusted/untrusted-text.js';
import { guardTool, ToolFailure } from '../tool-failure.js';
import { classifyBody, decodeBody } from './fetched-body.js';
import { PageCache } from './page-cache.js';
import type { ExtractedPage } from './page-extractor.js';
import type { FetchedPage, PageFetcher } from './page-fetcher.js';

const DEFAULT_MAX_CHARS = 30_000;

const webFetchInput = z.object({
  url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }).describe('The page to read'),
  format: z
    .enum(['markdown', 'text', 'html'])
    .default('markdown')
    .describe('markdown (default) keeps links and tables; text is plain; html is the cleaned article HTML'),
  max_chars: z
    .number()
    .int()
    .min(500)
    .max(100_000)
    .default(DEFAULT_MAX_CHARS)
    .describe(`Most characters to return; default ${DEFAULT_MAX_CHARS}`),
  offset: z.number().int().min(0).default(0).describe('Character to start at, to read on in a long page'),
});

/** A fetched page as cached: extracted HTML, or a plain body. */
type CachedPage = {
  url: string;
  /** Bytes read when the download was cut at the size cap. */
  cutAtBytes: number | null;
  /** How the bytes were decoded, when that is worth saying (not UTF-8). */
  charsetNote: string | null;
} & ({ kind: 'page'; page: ExtractedPage } | { kind: 'plain'; contentType: string; body: string });

export interface WebFetchToolOptions {
  fetcher: Pick<PageFetcher, 'fetch'>;
  clock?: Clock;
}

/**
 * `web_fetch`: the main content of a web page (Readability, then cleaned) as markdown, text or HTML,
 * with its title; plain text and JSON as they are; for a PDF, an image or another binary body, an
 * error result that says what it is. Pages are cached for 5 minutes, so reading on with `offset`
 * costs no second fetch.
 */
export function createWebFetchTool(options: WebFetchToolOptions): AgentTool<z.infer<typeof webFetchInput>> {
  const cache = new PageCache<CachedPage>(options.clock ?? systemClock);
  const load = async (url: string, signal: AbortSignal): Promise<{ page: CachedPage; cached: boolean }> => {
    const hit = cache.get(url);
    if (hit) return { page: hit, cached: true };
    const fetched = await options.fetcher.fetch(url, signal);
    const page = await readFetched(url, fetched);
    cache.set(url, page);
    return { page, cached: false };
  };

  return {
    name: 'web_fetch',
    group: 'web',
    description:
      'Read a web page: returns its title and main article content (menus, ads and scripts removed) as markdown, text or html.',
    input: webFetchInput,
    run: (input, context) =>
      guardTool(async () => {
        const { page, cached } = await load(input.url, context.signal);
        const content =
          page.kind === 'plain'
            ? page.body
            : input.format === 'html'
              ? page.page.html
              : input.format === 'text'
                ? page.page.text()
                : page.page.markdown();
        const slice = content.slice(input.offset, input.offset + input.max_chars);
        const end = input.offset + slice.length;
        const notes = [
          `${page.url}`,
          page.kind === 'plain'
            ? page.contentType
            : `${input.format}${page.page.article ? '' : ', no article found: whole page'}`,
          `characters ${input.offset}-${end} of ${content.length}`,
          ...(end < content.length ? [`continue with offset=${end}`] : []),
          ...(page.charsetNote ? [page.charsetNote] : []),
          ...(page.cutAtBytes !== null
            ? [
                `the page is larger than the download cap: only its first ${count(page.cutAtBytes)} bytes were read, so the content ends early, at character ${content.length}`,
              ]
            : []),
          ...(cached ? ['from cache'] : []),
        ];
        return `${notes.join('; ')}\n${fenceUntrusted(`web_fetch ${page.url}`, headerOf(page) + slice)}`;
      }),
  };
}

/** A fetched body as the model may read it, or a failure that says what it is instead. */
async function readFetched(url: string, fetched: FetchedPage): Promise<CachedPage> {
  if (fetched.status >= 400) {
    const body = stripInvisible(decodeBody(fetched.bytes, fetched.contentType).text).replace(/\s+/g, ' ');
    throw new ToolFailure(
      `${url}: HTTP ${fetched.status}${body.trim() ? ` — ${body.trim().slice(0, 200)}` : ''}`,
    );
  }
  const { kind, type } = classifyBody(fetched.contentType, fetched.bytes);
  const size = sizeOf(fetched);
  if (kind === 'pdf')
    throw new ToolFailure(
      `${url}: a PDF document (${size}); PDF text extraction is not available in this agent, so its text cannot be read. Look for an HTML version of the same document (an abstract or landing page).`,
    );
  if (kind === 'image')
    throw new ToolFailure(
      `${url}: an image (${type}, ${size}); web_fetch reads text and cannot show or describe images`,
    );
  if (kind === 'binary')
    throw new ToolFailure(
      `${url}: content type ${type} (${size}) is not text; web_fetch reads HTML and text (http_request returns raw answers)`,
    );
  const decoded = decodeBody(fetched.bytes, fetched.contentType);
  const base = {
    url: fetched.url,
    cutAtBytes: fetched.truncated ? fetched.bytes.length : null,
    charsetNote: decoded.unknownCharset
      ? `charset ${decoded.unknownCharset} is unknown here, read as UTF-8`
      : decoded.charset === 'utf-8'
        ? null
        : `decoded from ${decoded.charset}`,
  };
  if (kind === 'text') return { ...base, kind: 'plain', contentType: type, body: decoded.text };
  const { extractPage } = await import('./page-extractor.js');
  return { ...base, kind: 'page', page: extractPage(decoded.text, fetched.url) };
}

function sizeOf(fetched: FetchedPage): string {
  if (fetched.declaredBytes !== null) return `${count(fetched.declaredBytes)} bytes`;
  return fetched.truncated
    ? `more than ${count(fetched.bytes.length)} bytes`
    : `${count(fetched.bytes.length)} bytes`;
}

const count = (value: number): string => value.toLocaleString('en-US');

function headerOf(page: CachedPage): string {
  if (page.kind === 'plain') return '';
  const { title, byline, siteName, publishedTime } = page.page;
  const lines = [
    `Title: ${title || '(none)'}`,
    ...(byline ? [`Byline: ${byline}`] : []),
    ...(siteName ? [`Site: ${siteName}`] : []),
    ...(publishedTime ? [`Published: ${publishedTime}`] : []),
  ];
  return `${lines.join('\n')}\n\n`;
}
