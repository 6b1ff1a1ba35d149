import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeClock } from '@openlegion/infra/clock';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, servePages, startProxy } from '../../../test/loopback-servers.js';
import { minimalPdf } from '../../../test/minimal-pdf.js';
import { callTool } from '../../../test/tool-harness.js';
import { PageFetcher, type ProxySettings } from './page-fetcher.js';
import { tokenOverlap } from './token-overlap.js';
import { createWebFetchTool } from './web-fetch-tool.js';

/** Three saved real-world pages kept in the repository (test/fixtures/web-pages/README.md). */
const PAGES = fileURLToPath(new URL('../../../../../test/fixtures/web-pages', import.meta.url));
const sites = readdirSync(PAGES)
  .filter((site) => existsSync(path.join(PAGES, site, 'source.html')))
  .sort();
const workspace = '/nonexistent-workspace';

function webFetch(proxy: ProxySettings = {}, clock = new FakeClock(Date.now())) {
  const fetcher = new PageFetcher({ proxy, timeoutMs: 5_000, maxBytes: 5 * 1024 * 1024, userAgent: 'test' });
  return { tool: createWebFetchTool({ fetcher, clock }), fetcher, clock };
}

/** The fenced page of a web_fetch result: its header lines (title, ...) and its content. */
function pageOf(text: string): { header: string; content: string; status: string } {
  const status = text.slice(0, text.indexOf('\n'));
  const fenced = /<untrusted source="[^"]*">\n([\s\S]*)\n<\/untrusted>$/.exec(text)?.[1] ?? '';
  const split = fenced.indexOf('\n\n');
  return { status, header: fenced.slice(0, split), content: fenced.slice(split + 2) };
}

let pages: Loopback;
beforeAll(async () => {
  pages = await servePages(PAGES);
});
afterAll(() => pages.close());

describe('web_fetch on saved real-world pages', () => {
  it('has the three saved pages', () => {
    expect(sites).toEqual(['ars-1', 'gitlab-blog', 'lwn-1']);
  });

  it(`returns the article text (mean token overlap >= 0.9) and the title of all ${sites.length} pages`, async () => {
    const { tool, fetcher } = webFetch();
    const scores: Record<string, number> = {};
    for (const site of sites) {
      let content = '';
      let header = '';
      for (let offset = 0; ; ) {
        const result = await callTool(
          tool,
          { url: `${pages.url}/${site}/`, format: 'text', max_chars: 100_000, offset },
          { workspace },
        );
        expect(result.isError, `${site}: ${result.text.slice(0, 200)}`).toBe(false);
        const page = pageOf(result.text);
        header ||= page.header;
        content += page.content;
        const next = /continue with offset=(\d+)/.exec(page.status)?.[1];
        if (!next) break;
        offset = Number(next);
      }
      const expectedHtml = readFileSync(path.join(PAGES, site, 'expected.html'), 'utf8');
      const expectedText =
        parseHTML(`<html><body>${expectedHtml}</body></html>`).document.body.textContent ?? '';
      const metadata = JSON.parse(readFileSync(path.join(PAGES, site, 'expected-metadata.json'), 'utf8')) as {
        title: string;
      };
      expect(header, site).toContain(`Title: ${metadata.title.trim()}`);
      scores[site] = tokenOverlap(content, expectedText).f1;
    }
    await fetcher.close();
    const mean = Object.values(scores).reduce((sum, score) => sum + score, 0) / sites.length;
    expect(mean, JSON.stringify(scores)).toBeGreaterThanOrEqual(0.9);
  });

  it('gives markdown with headings and links resolved against the page address', async () => {
    const { tool, fetcher } = webFetch();
    const { text } = await callTool(tool, { url: `${pages.url}/lwn-1/`, max_chars: 100_000 }, { workspace });
    await fetcher.close();
    expect(text).toMatch(/^#{1,3} \S/m);
    // The page links `/Articles/637393/`: the link is made absolute against where it was fetched.
    expect(text).toMatch(/\]\(http:\/\/127\.0\.0\.1:\d+\/Articles\/\d+\//);
  });

  it('serves a repeat fetch from the cache for 5 minutes, then fetches again', async () => {
    const proxy = await startProxy(pages.port);
    const { tool, fetcher, clock } = webFetch({ httpProxy: proxy.url, noProxy: '' });
    const url = 'http://cache.test/gitlab-blog/';
    try {
      await callTool(tool, { url }, { workspace });
      const second = await callTool(tool, { url, format: 'html' }, { workspace });
      expect(second.text).toContain('from cache');
      expect(proxy.requests).toHaveLength(1);
      await clock.advance(5 * 60 * 1000 + 1);
      const third = await callTool(tool, { url }, { workspace });
      expect(third.text).not.toContain('from cache');
      expect(proxy.requests).toHaveLength(2);
    } finally {
      await fetcher.close();
      await proxy.close();
    }
  });
});

describe('web_fetch through the egress proxy', () => {
  it('sends requests through HTTP_PROXY with the credentials of the proxy URL', async () => {
    const proxy = await startProxy(pages.port);
    const proxyUrl = proxy.url.replace('http://', 'http://agent-a:token-1@');
    const { tool, fetcher } = webFetch({ httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy: '' });
    try {
      // article.test resolves nowhere: the page can only come through the proxy.
      const result = await callTool(tool, { url: 'http://article.test/lwn-1/' }, { workspace });
      expect(result.isError).toBe(false);
      expect(pageOf(result.text).header).toContain('Title: ');
      expect(proxy.requests.map((entry) => entry.line)).toEqual([
        expect.stringMatching(/^(CONNECT article\.test:80|GET http:\/\/article\.test\/lwn-1\/)$/),
      ]);
      expect(proxy.requests[0]?.authorization).toBe(
        `Basic ${Buffer.from('agent-a:token-1').toString('base64')}`,
      );
    } finally {
      await fetcher.close();
      await proxy.close();
    }
  });

  it('goes direct to hosts in NO_PROXY', async () => {
    const proxy = await startProxy(pages.port);
    const { tool, fetcher } = webFetch({ httpProxy: proxy.url, noProxy: 'localhost,127.0.0.1' });
    try {
      const result = await callTool(tool, { url: `${pages.url}/ars-1/` }, { workspace });
      expect(result.isError).toBe(false);
      expect(proxy.requests).toHaveLength(0);
    } finally {
      await fetcher.close();
      await proxy.close();
    }
  });

  it('turns a proxy refusal into an error naming the URL', async () => {
    const proxy = await startProxy(pages.port, ['blocked.test']);
    const { tool, fetcher } = webFetch({ httpProxy: proxy.url, noProxy: '' });
    try {
      const result = await callTool(tool, { url: 'http://blocked.test/ars-1/' }, { workspace });
      expect(result.isError).toBe(true);
      expect(result.text).toContain('http://blocked.test/ars-1/');
    } finally {
      await fetcher.close();
      await proxy.close();
    }
  });
});

describe('web_fetch failures', () => {
  it('names the URL when the server does not answer in time', async () => {
    const { createServer } = await import('node:http');
    const { listen } = await import('../../../test/loopback-servers.js');
    const silent = await listen(createServer(() => {}));
    const fetcher = new PageFetcher({ proxy: {}, timeoutMs: 200, maxBytes: 1024, userAgent: 'test' });
    const tool = createWebFetchTool({ fetcher });
    try {
      const result = await callTool(tool, { url: `${silent.url}/slow` }, { workspace });
      expect(result).toMatchObject({ isError: true, text: `${silent.url}/slow: no answer within 0.2 s` });
    } finally {
      await fetcher.close();
      await silent.close();
    }
  });

  it('reports an HTTP error status as an error with the status', async () => {
    const { tool, fetcher } = webFetch();
    const missing = await callTool(tool, { url: `${pages.url}/no-such-site/` }, { workspace });
    await fetcher.close();
    expect(missing).toMatchObject({ isError: true, text: expect.stringContaining('HTTP 404') });
  });

  it('refuses a body that is not text, and returns JSON as it is', async () => {
    const { createServer } = await import('node:http');
    const { listen } = await import('../../../test/loopback-servers.js');
    const server = await listen(
      createServer((request, response) =>
        request.url === '/data.json'
          ? response.writeHead(200, { 'content-type': 'application/json' }).end('{"answer":42}')
          : response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([137, 80, 78, 71])),
      ),
    );
    const { tool, fetcher } = webFetch();
    try {
      const image = await callTool(tool, { url: `${server.url}/logo.png` }, { workspace });
      const json = await callTool(tool, { url: `${server.url}/data.json` }, { workspace });
      expect(image).toMatchObject({
        isError: true,
        text: `${server.url}/logo.png: an image (image/png, 4 bytes); web_fetch reads text and cannot show or describe images`,
      });
      expect(json.text).toContain('{"answer":42}');
    } finally {
      await fetcher.close();
      await server.close();
    }
  });

  it('decodes a page in the charset its Content-Type names, reads a PDF and says a malformed one cannot be read', async () => {
    const { createServer } = await import('node:http');
    const { listen } = await import('../../../test/loopback-servers.js');
    const server = await listen(
      createServer((request, response) =>
        request.url === '/broken.pdf'
          ? response.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4\n%%EOF\n')
          : request.url === '/paper.pdf'
            ? response
                .writeHead(200, { 'content-type': 'application/pdf' })
                .end(minimalPdf({ title: 'A Paper', pages: [['Results', 'It works.']] }))
            : response
                .writeHead(200, { 'content-type': 'text/plain; charset=windows-1252' })
                .end(Buffer.from('\x93Caf\xe9\x94 \x96 5 \x80', 'latin1')),
      ),
    );
    const { tool, fetcher } = webFetch();
    try {
      const text = await callTool(tool, { url: `${server.url}/notes.txt` }, { workspace });
      const pdf = await callTool(tool, { url: `${server.url}/paper.pdf` }, { workspace });
      const broken = await callTool(tool, { url: `${server.url}/broken.pdf` }, { workspace });
      expect(text.text).toBe(
        `${server.url}/notes.txt; text/plain; characters 0-12 of 12; decoded from windows-1252\n<untrusted source="web_fetch ${server.url}/notes.txt">\n“Café” – 5 €\n</untrusted>`,
      );
      expect(pdf).toEqual({
        isError: false,
        text: `${server.url}/paper.pdf; application/pdf; characters 0-17 of 17\n<untrusted source="web_fetch ${server.url}/paper.pdf">\nPDF document, 1 page\nTitle: A Paper\n\nResults\nIt works.\n</untrusted>`,
      });
      expect(broken).toEqual({
        isError: true,
        text: `${server.url}/broken.pdf: could not read the PDF (15 bytes): Invalid PDF structure`,
      });
    } finally {
      await fetcher.close();
      await server.close();
    }
  });

  it('cuts a page at the download cap and says so', async () => {
    const fetcher = new PageFetcher({ proxy: {}, timeoutMs: 5_000, maxBytes: 20_000, userAgent: 'test' });
    const tool = createWebFetchTool({ fetcher });
    const { text, isError } = await callTool(tool, { url: `${pages.url}/lwn-1/` }, { workspace });
    await fetcher.close();
    expect(isError).toBe(false);
    expect(text).toMatch(
      /; the page is larger than the download cap: only its first 20,000 bytes were read, so the content ends early, at character \d+\n/,
    );
  });
});
