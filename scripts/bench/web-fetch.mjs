// web-fetch: how well the agent's web_fetch tool finds a page's article, and how fast. Each page of a
// folder laid out like ../shared/data/web-pages (<site>/source.html, expected.html,
// expected-metadata.json) is served from 127.0.0.1 and read with web_fetch as text and as markdown;
// the text is scored against the text of expected.html by word-multiset F1 (token overlap), the title
// against expected-metadata.json. Time is per page, uncached: download + Readability + conversion.
// Options: --pages DIR (any folder of the same layout), --no-write.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEFAULT_PAGES = path.resolve(ROOT, '../shared/data/web-pages');
const TARGETS = { mean_overlap: 0.9, title_accuracy: 0.9 };

export async function main(args) {
  const options = parseArgs(args);
  const tools = await import(path.join(ROOT, 'packages/agent/dist/tools/index.js'));
  const { parseHTML } = await import(path.join(ROOT, 'packages/agent/node_modules/linkedom/esm/index.js'));
  const sites = readdirSync(options.pages, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const server = await servePages(options.pages);
  const fetcher = new tools.PageFetcher({
    proxy: {},
    timeoutMs: 30_000,
    maxBytes: 5 * 1024 * 1024,
    userAgent: 'bench',
  });
  const webFetch = tools.createWebFetchTool({ fetcher });
  const context = { workspace: ROOT, signal: new AbortController().signal };
  const read = async (url, format) => {
    let content = '';
    let title = '';
    for (let offset = 0; ; ) {
      const result = await webFetch.run(
        webFetch.input.parse({ url, format, offset, max_chars: 100_000 }),
        context,
      );
      const text = result.content[0]?.text ?? '';
      if (result.isError) throw new Error(text);
      const page = pageOf(text);
      title ||= /^Title: (.*)$/m.exec(page.header)?.[1] ?? '';
      content += page.content;
      const next = /continue with offset=(\d+)/.exec(page.status)?.[1];
      if (!next) return { content, title };
      offset = Number(next);
    }
  };
  try {
    // Warm-up (module loading and JIT), on a URL the measured runs do not share a cache entry with.
    await read(`${server.url}/${sites[0]}/?warmup`, 'text');
    const pages = [];
    for (const site of sites) {
      const url = `${server.url}/${site}/`;
      const started = performance.now();
      const text = await read(url, 'text');
      const ms = performance.now() - started;
      const markdown = await read(url, 'markdown');
      const expectedHtml = readFileSync(path.join(options.pages, site, 'expected.html'), 'utf8');
      const expected = parseHTML(`<html><body>${expectedHtml}</body></html>`).document.body.textContent ?? '';
      const metadata = JSON.parse(
        readFileSync(path.join(options.pages, site, 'expected-metadata.json'), 'utf8'),
      );
      const overlap = tools.tokenOverlap(text.content, expected);
      const page = {
        site,
        overlap: round(overlap.f1),
        precision: round(overlap.precision),
        recall: round(overlap.recall),
        overlap_markdown: round(tools.tokenOverlap(stripLinkTargets(markdown.content), expected).f1),
        title_ok: text.title.trim() === String(metadata.title ?? '').trim(),
        ms: Math.round(ms),
      };
      pages.push(page);
      console.log(
        `${site.padEnd(22)} overlap ${page.overlap.toFixed(3)} (P ${page.precision.toFixed(3)} R ${page.recall.toFixed(3)})  markdown ${page.overlap_markdown.toFixed(3)}  title ${page.title_ok ? 'ok' : `"${text.title}" != "${metadata.title}"`}  ${page.ms} ms`,
      );
    }
    const mean = (key) => round(pages.reduce((sum, page) => sum + page[key], 0) / pages.length);
    const times = pages.map((page) => page.ms);
    const metrics = {
      pages_dir: path.relative(ROOT, options.pages) || '.',
      pages: pages.length,
      mean_overlap: mean('overlap'),
      mean_precision: mean('precision'),
      mean_recall: mean('recall'),
      mean_overlap_markdown: mean('overlap_markdown'),
      min_overlap: Math.min(...pages.map((page) => page.overlap)),
      title_accuracy: round(pages.filter((page) => page.title_ok).length / pages.length),
      p50_ms: Math.round(median(times)),
      p95_ms: Math.round(percentile(times, 0.95)),
      max_ms: Math.max(...times),
      method:
        'web_fetch format text over loopback HTTP, uncached; overlap = F1 of lower-cased word multisets against the text of expected.html; markdown overlap after removing link and image targets',
      per_page: pages,
    };
    const pass =
      metrics.mean_overlap >= TARGETS.mean_overlap && metrics.title_accuracy >= TARGETS.title_accuracy;
    console.log(
      `mean overlap ${metrics.mean_overlap} (markdown ${metrics.mean_overlap_markdown}), titles ${metrics.title_accuracy}, p50 ${metrics.p50_ms} ms, p95 ${metrics.p95_ms} ms`,
    );
    if (options.write) {
      const file = writeResults('web-fetch', metrics, TARGETS, pass);
      console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
    }
    return 0;
  } finally {
    await fetcher.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** The status line and the fenced page (header lines, blank line, content) of a web_fetch result. */
function pageOf(text) {
  const status = text.slice(0, text.indexOf('\n'));
  const fenced = /<untrusted source="[^"]*">\n([\s\S]*)\n<\/untrusted>$/.exec(text)?.[1] ?? '';
  const split = fenced.indexOf('\n\n');
  return { status, header: fenced.slice(0, split), content: fenced.slice(split + 2) };
}

/** Markdown without the URLs of its links and images, which the reference text does not have. */
function stripLinkTargets(markdown) {
  return markdown.replace(/\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, ']');
}

function servePages(dir) {
  const server = createServer((request, response) => {
    const site = path.basename(decodeURIComponent((request.url ?? '/').split('/')[1] ?? ''));
    try {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end(readFileSync(path.join(dir, site, 'source.html')));
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      server.url = `http://127.0.0.1:${server.address().port}`;
      resolve(server);
    }),
  );
}

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

function parseArgs(args) {
  const options = { pages: DEFAULT_PAGES, write: true };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--pages') options.pages = path.resolve(args[++i]);
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown argument ${arg}; use --pages DIR, --no-write`);
  }
  return options;
}

const round = (value) => Math.round(value * 1000) / 1000;
