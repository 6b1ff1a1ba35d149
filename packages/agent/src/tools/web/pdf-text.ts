import type { Clock } from '@openlegion/infra/clock';

/** Pages read from one PDF at most: enough for papers and reports, bounded for 5 MB of page tree. */
export const PDF_MAX_PAGES = 200;
/** Time to read one PDF's text at most: PDF.js runs on the agent's own thread, so it is cut off. */
export const PDF_TIMEOUT_MS = 20_000;

/** A PDF's text layer, page by page up to the cap. */
export interface PdfText {
  /** Pages the document has. */
  pages: number;
  /** Pages whose text was read: all of them, or the first {@link PDF_MAX_PAGES}. */
  pagesRead: number;
  /** The document information's title, if it has a non-empty one. */
  title: string | null;
  /** The pages' text, lines kept, pages apart by a blank line; empty when no page has text. */
  text: string;
}

export interface PdfLimits {
  maxPages: number;
  timeoutMs: number;
  clock: Pick<Clock, 'setTimeout'>;
  /** The tool call's signal: a stopped turn stops the reading too. */
  signal: AbortSignal;
}

/** Why a PDF could not be read, worded for the model (`could not read the PDF: <message>`). */
export class PdfUnreadable extends Error {
  override readonly name = 'PdfUnreadable';
}

/**
 * The text of a PDF with unpdf's serverless PDF.js build. Pages are read one at a time, rather than
 * with unpdf's `extractText` (which reads every page at once), so that a page cap and a deadline
 * can stop the work; each page's text is joined as `extractText` joins it. Anything PDF.js rejects
 * (a malformed file, a password) becomes a {@link PdfUnreadable}; an abort of `signal` is thrown on.
 */
export async function readPdfText(bytes: Uint8Array, limits: PdfLimits): Promise<PdfText> {
  const stop = new AbortController();
  const timer = limits.clock.setTimeout(
    () => stop.abort(new PdfUnreadable(`reading it took longer than ${limits.timeoutMs / 1000} s`)),
    limits.timeoutMs,
  );
  const onAbort = () => stop.abort(limits.signal.reason);
  limits.signal.addEventListener('abort', onAbort, { once: true });
  if (limits.signal.aborted) onAbort();
  let destroy = async () => {};
  try {
    const { getResolvedPDFJS } = await import('unpdf');
    const { getDocument } = await bounded(getResolvedPDFJS(), stop.signal);
    // A copy: PDF.js may take over (detach) the buffer it is given. Verbosity 0 (errors only): its
    // warnings about damaged files would go to the agent's stdout.
    const task = getDocument({ data: new Uint8Array(bytes), verbosity: 0, useSystemFonts: false });
    destroy = () => task.destroy();
    const pdf = await bounded(task.promise, stop.signal);
    const { info } = await bounded(pdf.getMetadata(), stop.signal);
    const title = titleOf(info);
    const pagesRead = Math.min(pdf.numPages, limits.maxPages);
    const texts: string[] = [];
    for (let number = 1; number <= pagesRead; number++) {
      const page = await bounded(pdf.getPage(number), stop.signal);
      const content = await bounded(page.getTextContent(), stop.signal);
      texts.push(
        content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''),
      );
      page.cleanup();
    }
    return { pages: pdf.numPages, pagesRead, title, text: mergePages(texts) };
  } catch (error) {
    if (limits.signal.aborted) throw limits.signal.reason;
    if (error instanceof PdfUnreadable) throw error;
    throw new PdfUnreadable(reasonOf(error));
  } finally {
    timer.cancel();
    limits.signal.removeEventListener('abort', onAbort);
    await destroy().catch(() => {});
  }
}

/** `work`, or the signal's reason as soon as it aborts. */
function bounded<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function titleOf(info: unknown): string | null {
  const title = (info as { Title?: unknown } | undefined)?.Title;
  if (typeof title !== 'string') return null;
  return title.replace(/\s+/g, ' ').trim() || null;
}

/**
 * Pages apart by a blank line; runs of spaces collapsed and at most one blank line in a row, as
 * unpdf's `extractText` with `mergePages` does.
 */
function mergePages(texts: string[]): string {
  return texts
    .join('\n\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** PDF.js's own words, except for a password, which it reports as "No password given". */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'PasswordException') return 'it is encrypted and opening it needs a password';
  return error.message.replace(/\.$/, '');
}
