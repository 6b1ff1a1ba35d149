import { type Clock, systemClock } from '@openlegion/infra/clock';
import type { AgentTool } from '@openlegion/protocol';
import { fenceUntrusted, stripInvisible } from '@openlegion/protocol';
import { z } from 'zod';
import type { LongResultSummariser } from '../../context/long-result-summariser.js';
import { guardTool, ToolFailure } from '../tool-failure.js';
import { classifyBody, decodeBody } from './fetched-body.js';
import { PageCache } from './page-cache.js';
import type { ExtractedPage } from './page-extractor.js';
import type { FetchedPage, PageFetcher } from './page-fetcher.js';
import {
  PDF_MAX_PAGES,
  PDF_TIMEOUT_MS,
  type PdfLimits,
  type PdfText,
  PdfUnreadable,
  readPdfText,
} from './pdf-text.js';

const DEFAULT_MAX_CHARS = 30_000;
/** A question, not a document: longer ones are refused by the schema. */
const MAX_FOCUS_CHARS = 500;

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
  focus: z
    .string()
    .trim()
    .min(1)
    .max(MAX_FOCUS_CHARS)
    .optional()
    .describe(
      'Your question about the page. When the page is longer than max_chars it is summarised against this question instead of cut off, and the result says what was left out',
    ),
});

/** A page's summary against one focus, as cached. */
type PageSummary = { text: string; summarised: boolean; note: string };

/** A fetched page as cached: extracted HTML, or a plain body. */
type CachedPage = {
  url: string;
  /** Bytes read when the download was cut at the size cap. */
  cutAtBytes: number | null;
  /** How the bytes were decoded, when that is worth saying (not UTF-8). */
  charsetNote: string | null;
} & (
  | { kind: 'page'; page: ExtractedPage }
  | { kind: 'plain'; contentType: string; body: string }
  | { kind: 'pdf'; pdf: PdfText }
);

export interface WebFetchToolOptions {
  fetcher: Pick<PageFetcher, 'fetch'>;
  clock?: Clock;
  /** Condenses a long page against `focus`; without one, a long page is clipped as without focus. */
  summariser?: LongResultSummariser;
  /** Bounds on reading a PDF's text; defaults {@link PDF_MAX_PAGES} and {@link PDF_TIMEOUT_MS}. */
  pdf?: { maxPages?: number; timeoutMs?: number };
}

/**
 * `web_fetch`: the main content of a web page (Readability, then cleaned) as markdown, text or HTML,
 * with its title; plain text and JSON as they are; a PDF's text layer (unpdf, the first 200 pages);
 * for an image or another binary body, an error result that says what it is. Pages (and PDFs' text)
 * are cached for 5 minutes, so reading on with `offset` costs no second fetch.
 */
export function createWebFetchTool(options: WebFetchToolOptions): AgentTool<z.infer<typeof webFetchInput>> {
  const clock = options.clock ?? systemClock;
  const cache = new PageCache<CachedPage>(clock);
  const pdfLimits = {
    clock,
    maxPages: options.pdf?.maxPages ?? PDF_MAX_PAGES,
    timeoutMs: options.pdf?.timeoutMs ?? PDF_TIMEOUT_MS,
  };
  // The same question about the same page costs no second round of fast-tier calls.
  const summaries = new PageCache<PageSummary>(clock);
  const load = async (
    url: string,
    signal: AbortSignal,
    traceId: string | undefined,
  ): Promise<{ page: CachedPage; cached: boolean }> => {
    const hit = cache.get(url);
    if (hit) return { page: hit, cached: true };
    const fetched = await options.fetcher.fetch(url, signal, traceId);
    const page = await readFetched(url, fetched, { ...pdfLimits, signal });
    cache.set(url, page);
    return { page, cached: false };
  };

  return {
    name: 'web_fetch',
    group: 'web',
    description:
      'Read a web page: returns its title and main article content (menus, ads and scripts removed) as markdown, text or html. Give focus (your question) to have a long page summarised against it instead of cut off.',
    input: webFetchInput,
    run: (input, context) =>
      guardTool(async () => {
        const { page, cached } = await load(input.url, context.signal, context.traceId);
        const content =
          page.kind === 'plain'
            ? page.body
            : page.kind === 'pdf'
              ? page.pdf.text
              : input.format === 'html'
                ? page.page.html
                : input.format === 'text'
                  ? page.page.text()
                  : page.page.markdown();
        if (input.focus && content.length - input.offset > input.max_chars)
          return summarisedPage(page, content, input, context, options.summariser, cached, summaries);
        const slice = content.slice(input.offset, input.offset + input.max_chars);
        const end = input.offset + slice.length;
        const notes = [
          `${page.url}`,
          page.kind === 'plain'
            ? page.contentType
            : page.kind === 'pdf'
              ? 'application/pdf'
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
async function readFetched(url: string, fetched: FetchedPage, pdfLimits: PdfLimits): Promise<CachedPage> {
  if (fetched.status >= 400) {
    const body = stripInvisible(decodeBody(fetched.bytes, fetched.contentType).text).replace(/\s+/g, ' ');
    throw new ToolFailure(
      `${url}: HTTP ${fetched.status}${body.trim() ? ` — ${body.trim().slice(0, 200)}` : ''}`,
    );
  }
  const { kind, type } = classifyBody(fetched.contentType, fetched.bytes);
  const size = sizeOf(fetched);
  const cutAtBytes = fetched.truncated ? fetched.bytes.length : null;
  if (kind === 'pdf')
    return {
      url: fetched.url,
      cutAtBytes,
      charsetNote: null,
      kind,
      pdf: await readPdf(url, fetched, pdfLimits),
    };
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
    cutAtBytes,
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

/** A PDF's text, or a failure that says why there is none. */
async function readPdf(url: string, fetched: FetchedPage, limits: PdfLimits): Promise<PdfText> {
  let pdf: PdfText;
  try {
    pdf = await readPdfText(fetched.bytes, limits);
  } catch (error) {
    if (!(error instanceof PdfUnreadable)) throw error;
    // A PDF's cross-reference table is at its end, so one cut at the cap is usually unreadable.
    const cut = fetched.truncated
      ? `; only its first ${count(fetched.bytes.length)} bytes were downloaded (the download cap), and a PDF cut short usually cannot be read`
      : '';
    throw new ToolFailure(`${url}: could not read the PDF (${sizeOf(fetched)}): ${error.message}${cut}`);
  }
  if (!pdf.text)
    throw new ToolFailure(
      `${url}: a PDF document (${sizeOf(fetched)}, ${pages(pdf.pages)}) with no extractable text${pdf.pagesRead < pdf.pages ? ` in its first ${pages(pdf.pagesRead)}` : ''}: its pages are probably scanned images, which web_fetch cannot read. Look for an HTML or text version of the same document.`,
    );
  return pdf;
}

const pages = (n: number): string => `${count(n)} page${n === 1 ? '' : 's'}`;

function sizeOf(fetched: FetchedPage): string {
  if (fetched.declaredBytes !== null) return `${count(fetched.declaredBytes)} bytes`;
  return fetched.truncated
    ? `more than ${count(fetched.bytes.length)} bytes`
    : `${count(fetched.bytes.length)} bytes`;
}

const count = (value: number): string => value.toLocaleString('en-US');

/**
 * A page longer than `max_chars` with a `focus`: summarised from `offset` on against the focus on
 * the fast tier (or clipped, with the reason, when that fails or no summariser is set).
 */
async function summarisedPage(
  page: CachedPage,
  content: string,
  input: z.infer<typeof webFetchInput>,
  context: { signal: AbortSignal; traceId?: string | undefined },
  summariser: LongResultSummariser | undefined,
  cached: boolean,
  summaries: PageCache<PageSummary>,
): Promise<string> {
  const rest = content.slice(input.offset);
  const focus = input.focus ?? '';
  const key = JSON.stringify([page.url, input.format, input.offset, input.max_chars, focus]);
  const known = summaries.get(key);
  const summary =
    known ??
    (summariser
      ? await summariser.summarise({
          text: rest,
          focus,
          maxChars: input.max_chars,
          source: `web page ${page.url}`,
          signal: context.signal,
          traceId: context.traceId,
        })
      : {
          text: rest.slice(0, input.max_chars),
          summarised: false,
          note: `no summariser in this agent; clipped to the first ${input.max_chars} of ${rest.length} chars`,
        });
  if (summary.summarised && !known) summaries.set(key, summary);
  const notes = [
    page.url,
    page.kind === 'plain' ? page.contentType : page.kind === 'pdf' ? 'application/pdf' : input.format,
    `characters ${input.offset}-${content.length} of ${content.length}`,
    summary.note,
    summary.summarised
      ? `for the exact text call web_fetch again without focus (offset=${input.offset})`
      : `continue with offset=${input.offset + summary.text.length}`,
    ...(page.cutAtBytes !== null ? [`the download was cut at ${count(page.cutAtBytes)} bytes`] : []),
    ...(known ? ['summary from cache'] : cached ? ['from cache'] : []),
  ];
  return `${notes.join('; ')}\n${fenceUntrusted(`web_fetch ${page.url}`, headerOf(page) + summary.text)}`;
}

function headerOf(page: CachedPage): string {
  if (page.kind === 'plain') return '';
  if (page.kind === 'pdf') {
    const { pdf } = page;
    const read = pdf.pagesRead < pdf.pages ? ` (text of the first ${count(pdf.pagesRead)} only)` : '';
    return `PDF document, ${pages(pdf.pages)}${read}\nTitle: ${pdf.title ?? '(none)'}\n\n`;
  }
  const { title, byline, siteName, publishedTime } = page.page;
  const lines = [
    `Title: ${title || '(none)'}`,
    ...(byline ? [`Byline: ${byline}`] : []),
    ...(siteName ? [`Site: ${siteName}`] : []),
    ...(publishedTime ? [`Published: ${publishedTime}`] : []),
  ];
  return `${lines.join('\n')}\n\n`;
}
