import { systemClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { minimalPdf } from '../../../test/minimal-pdf.js';
import { callTool } from '../../../test/tool-harness.js';
import type { FetchedPage } from './page-fetcher.js';
import { createWebFetchTool, type WebFetchToolOptions } from './web-fetch-tool.js';

const URL_ = 'https://site.example/doc';
const workspace = '/nonexistent-workspace';

/** web_fetch over a fetcher that answers every URL with `answer`, as the network would. */
async function fetchWith(
  answer: Partial<FetchedPage> & { bytes: Buffer },
  args: object = {},
  options: Omit<WebFetchToolOptions, 'fetcher'> = {},
) {
  const tool = createWebFetchTool({
    ...options,
    fetcher: {
      fetch: async (url) => ({
        url,
        status: 200,
        contentType: 'text/html',
        truncated: false,
        declaredBytes: null,
        ...answer,
      }),
    },
  });
  return callTool(tool, { url: URL_, ...args }, { workspace });
}

const fenced = (body: string) => `<untrusted source="web_fetch ${URL_}">\n${body}\n</untrusted>`;
const page = (title: string, body: string) =>
  `<html><head><title>${title}</title></head><body><div>${body}</div></body></html>`;

describe('web_fetch on content that is not plain UTF-8 HTML', () => {
  it('says a page over the size cap was cut, how many bytes were read and where its content ends', async () => {
    const html = page('Long', `${'word '.repeat(40)}and the rest`);
    const bytes = Buffer.from(html).subarray(0, 200);
    const result = await fetchWith({ bytes, truncated: true }, { format: 'text' });
    expect(result).toEqual({
      isError: false,
      text:
        `${URL_}; text; characters 0-151 of 151; the page is larger than the download cap: only its first 200 bytes were read, so the content ends early, at character 151\n` +
        fenced(`Title: Long\n\n${'word '.repeat(30)}w`),
    });
  });

  it('says an image is an image, with its type and size', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const declared = await fetchWith({ bytes: png, contentType: 'image/png' });
    const sniffed = await fetchWith({ bytes: png, contentType: '' });
    const cut = await fetchWith({
      bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
      contentType: 'image/jpeg',
      truncated: true,
    });
    expect(declared).toEqual({
      isError: true,
      text: `${URL_}: an image (image/png, 12 bytes); web_fetch reads text and cannot show or describe images`,
    });
    expect(sniffed.text).toBe(declared.text);
    expect(cut.text).toBe(
      `${URL_}: an image (image/jpeg, more than 4 bytes); web_fetch reads text and cannot show or describe images`,
    );
  });

  it('refuses other binary content by its type', async () => {
    const result = await fetchWith({
      bytes: Buffer.from([0x50, 0x4b, 3, 4]),
      contentType: 'application/zip',
    });
    expect(result).toEqual({
      isError: true,
      text: `${URL_}: content type application/zip (4 bytes) is not text; web_fetch reads HTML and text (http_request returns raw answers)`,
    });
  });

  it('decodes windows-1252 named in the Content-Type header and says so', async () => {
    const bytes = Buffer.from(page('Caf\xe9', 'Cr\xe8me br\xfbl\xe9e \x96 \x80 5'), 'latin1');
    const result = await fetchWith(
      { bytes, contentType: 'text/html; charset=windows-1252' },
      { format: 'text' },
    );
    expect(result.text).toBe(
      `${URL_}; text; characters 0-18 of 18; decoded from windows-1252\n` +
        fenced('Title: Café\n\nCrème brûlée – € 5'),
    );
  });

  it('decodes iso-8859-1 named by <meta charset> (read as windows-1252, as browsers do)', async () => {
    const html = `<html><head><meta charset="iso-8859-1"><title>Gr\xfc\xdfe</title></head><body><p>\xc0 bient\xf4t</p></body></html>`;
    const result = await fetchWith({ bytes: Buffer.from(html, 'latin1') }, { format: 'text' });
    expect(result.text).toBe(
      `${URL_}; text; characters 0-9 of 9; decoded from windows-1252\n${fenced('Title: Grüße\n\nÀ bientôt')}`,
    );
  });

  it('decodes shift_jis named by <meta http-equiv>', async () => {
    const head = Buffer.from(
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><title>',
    );
    // 日本語 in Shift_JIS.
    const title = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]);
    const tail = Buffer.from('</title></head><body><p>OK</p></body></html>');
    const result = await fetchWith({ bytes: Buffer.concat([head, title, tail]) }, { format: 'text' });
    expect(result.text).toBe(
      `${URL_}; text; characters 0-2 of 2; decoded from shift_jis\n${fenced('Title: 日本語\n\nOK')}`,
    );
  });

  it('reads a charset it does not know as UTF-8 and says so', async () => {
    const result = await fetchWith(
      { bytes: Buffer.from('plain words'), contentType: 'text/plain; charset=x-martian' },
      { format: 'text' },
    );
    expect(result.text).toBe(
      `${URL_}; text/plain; characters 0-11 of 11; charset x-martian is unknown here, read as UTF-8\n` +
        fenced('plain words'),
    );
  });

  it('passes plain text and JSON through as they are', async () => {
    const text = await fetchWith({ bytes: Buffer.from('line one\nline two\n'), contentType: 'text/plain' });
    const json = await fetchWith({
      bytes: Buffer.from('{"answer": 42}'),
      contentType: 'application/json; charset=utf-8',
    });
    expect(text).toEqual({
      isError: false,
      text: `${URL_}; text/plain; characters 0-18 of 18\n${fenced('line one\nline two\n')}`,
    });
    expect(json).toEqual({
      isError: false,
      text: `${URL_}; application/json; characters 0-14 of 14\n${fenced('{"answer": 42}')}`,
    });
  });

  it('reads a body served without a type by what it holds', async () => {
    const result = await fetchWith({ bytes: Buffer.from('just some notes'), contentType: '' });
    expect(result.text).toBe(`${URL_}; text/plain; characters 0-15 of 15\n${fenced('just some notes')}`);
  });
});

describe('web_fetch on a PDF', () => {
  const paper = minimalPdf({
    title: 'On (Small) Tests',
    pages: [['Abstract', 'We read   PDFs.'], ['Page two.']],
  });
  const asPdf = { contentType: 'application/pdf' };

  it('returns its text under a header naming it a PDF, with its page count and title', async () => {
    const result = await fetchWith({ bytes: paper, ...asPdf }, { format: 'text' });
    expect(result).toEqual({
      isError: false,
      text:
        `${URL_}; application/pdf; characters 0-33 of 33\n` +
        fenced('PDF document, 2 pages\nTitle: On (Small) Tests\n\nAbstract\nWe read PDFs.\n\nPage two.'),
    });
  });

  it('reads a PDF served as text/html as a PDF, not as a page with no document', async () => {
    const result = await fetchWith(
      { bytes: paper, contentType: 'text/html; charset=utf-8' },
      { format: 'text' },
    );
    expect(result.isError).toBe(false);
    expect(result.text).toContain('; application/pdf; ');
    expect(result.text).toContain('PDF document, 2 pages');
  });

  it('knows a PDF by its signature, and pages its text with max_chars and offset from the cache', async () => {
    const lines = Array.from({ length: 3 }, (_, page) =>
      Array.from({ length: 20 }, (_, line) => `Page ${page + 1}, line ${line + 1} of a long document.`),
    );
    const text = lines.map((page) => page.join('\n')).join('\n\n');
    let fetches = 0;
    const tool = createWebFetchTool({
      fetcher: {
        fetch: async (url) => {
          fetches++;
          const bytes = minimalPdf({ pages: lines });
          return {
            url,
            status: 200,
            contentType: 'application/octet-stream',
            bytes,
            truncated: false,
            declaredBytes: null,
          };
        },
      },
    });
    const first = await callTool(tool, { url: URL_, max_chars: 500 }, { workspace });
    const next = await callTool(tool, { url: URL_, max_chars: 500, offset: 500 }, { workspace });
    const header = 'PDF document, 3 pages\nTitle: (none)\n\n';
    expect(first.text).toBe(
      `${URL_}; application/pdf; characters 0-500 of ${text.length}; continue with offset=500\n` +
        fenced(header + text.slice(0, 500)),
    );
    expect(next.text).toBe(
      `${URL_}; application/pdf; characters 500-1000 of ${text.length}; continue with offset=1000; from cache\n` +
        fenced(header + text.slice(500, 1000)),
    );
    expect(fetches).toBe(1);
  });

  it('reads the first pages only when there are more than the cap, and says so', async () => {
    const result = await fetchWith(
      { bytes: minimalPdf({ pages: [['one'], ['two'], ['three']] }), ...asPdf },
      {},
      { pdf: { maxPages: 2 } },
    );
    expect(result.text).toBe(
      `${URL_}; application/pdf; characters 0-8 of 8\n` +
        fenced('PDF document, 3 pages (text of the first 2 only)\nTitle: (none)\n\none\n\ntwo'),
    );
  });

  it('says a malformed PDF cannot be read, and why', async () => {
    const result = await fetchWith({ bytes: Buffer.from('%PDF-1.4\n%%EOF\n'), ...asPdf, declaredBytes: 15 });
    expect(result).toEqual({
      isError: true,
      text: `${URL_}: could not read the PDF (15 bytes): Invalid PDF structure`,
    });
  });

  it('says a PDF cut at the download cap cannot be read, and that it was cut', async () => {
    const result = await fetchWith({ bytes: paper.subarray(0, 300), ...asPdf, truncated: true });
    expect(result.text).toBe(
      `${URL_}: could not read the PDF (more than 300 bytes): Invalid PDF structure; only its first 300 bytes were downloaded (the download cap), and a PDF cut short usually cannot be read`,
    );
  });

  it('says a password-protected PDF cannot be read', async () => {
    const locked = minimalPdf({ pages: [['secret']], encrypted: true });
    const result = await fetchWith({ bytes: locked, ...asPdf });
    expect(result).toEqual({
      isError: true,
      text: `${URL_}: could not read the PDF (${locked.length} bytes): it is encrypted and opening it needs a password`,
    });
  });

  it('says a PDF without a text layer (a scan) has no extractable text', async () => {
    const scan = minimalPdf({ pages: [[], []] });
    const result = await fetchWith({ bytes: scan, ...asPdf });
    expect(result).toEqual({
      isError: true,
      text: `${URL_}: a PDF document (${scan.length} bytes, 2 pages) with no extractable text: its pages are probably scanned images, which web_fetch cannot read. Look for an HTML or text version of the same document.`,
    });
  });

  it('stops reading a PDF when the turn is stopped', async () => {
    const turn = new AbortController();
    const tool = createWebFetchTool({
      fetcher: {
        fetch: async (url) => {
          turn.abort(new DOMException('stopped', 'AbortError'));
          return { url, status: 200, ...asPdf, bytes: paper, truncated: false, declaredBytes: null };
        },
      },
    });
    const result = await callTool(tool, { url: URL_ }, { workspace, signal: turn.signal });
    expect(result).toEqual({
      isError: true,
      text: 'cancelled: the turn was stopped before the tool finished',
    });
  });

  it('stops reading a PDF at the time bound', async () => {
    // A clock on which every timer is due at once: the bound has passed before the first page.
    const elapsed = {
      ...systemClock,
      setTimeout(callback: () => void) {
        callback();
        return { cancel() {} };
      },
    };
    const result = await fetchWith(
      { bytes: paper, ...asPdf },
      {},
      { clock: elapsed, pdf: { timeoutMs: 20_000 } },
    );
    expect(result).toEqual({
      isError: true,
      text: `${URL_}: could not read the PDF (${paper.length} bytes): reading it took longer than 20 s`,
    });
  });
});
