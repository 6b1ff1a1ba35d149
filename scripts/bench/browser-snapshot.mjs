// browser-snapshot: for every saved page (../shared/data/web-pages or --pages DIR, one folder per
// page with source.html), our browser_snapshot against @playwright/mcp's browser_snapshot on the
// same page in the same run, same system Chromium: size (chars, and o200k_base tokens counted by
// js-tiktoken), latency (median of REPEATS calls), and interactive elements addressable by ref.
// Pages are served on 127.0.0.1; both browsers send every other host to a proxy that refuses it
// without dialing anywhere, so nothing leaves the machine.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEFAULT_PAGES = path.resolve(ROOT, '../shared/data/web-pages');
const CHROMIUM = '/usr/bin/chromium';
const REPEATS = 5;
const TARGETS = { median_size_ratio: 0.5, median_latency_ratio: 1.2, interactive_missing: 0 };
/** Roles a model acts on (the browser package's INTERACTIVE_ROLES), for counting MCP's refs. */
const INTERACTIVE =
  /^\s*- (button|link|textbox|searchbox|checkbox|radio|combobox|listbox|menuitem|menuitemcheckbox|menuitemradio|option|tab|switch|slider|spinbutton|treeitem)\b.*\[ref=[^\]]+\]|\[ref=[^\]]+\].*\[cursor=pointer\]/;

export async function main(args) {
  const flag = args.indexOf('--pages');
  const dir = flag >= 0 && args[flag + 1] ? path.resolve(args[flag + 1]) : DEFAULT_PAGES;
  const sites = readdirSync(dir).filter((site) => existsSync(path.join(dir, site, 'source.html')));
  if (!sites.length) throw new Error(`no <site>/source.html under ${dir}`);
  const browser = await import(path.join(ROOT, 'packages/browser/dist/index.js'));
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { getEncoding } = await import('js-tiktoken');
  const encoding = getEncoding('o200k_base');
  const tokens = (text) => encoding.encode(text).length;

  const pages = await serve(dir, sites);
  const proxy = await refusingProxy();
  const work = mkdtempSync(path.join(tmpdir(), 'browser-snapshot-'));
  const session = browser.createBrowserSession({
    profileDir: path.join(work, 'profile'),
    proxy: { server: proxy.url, bypass: '127.0.0.1' },
    extraArgs: ['--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'],
  });
  const tools = browser.createBrowserTools({ session });
  const ours = (name, input) => runTool(tools, name, input, work);
  const mcp = new Client({ name: 'openlegion-bench', version: '0.0.0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        path.join(ROOT, 'node_modules/@playwright/mcp/cli.js'),
        '--headless',
        '--no-sandbox',
        '--isolated',
        '--browser',
        'chromium',
        '--executable-path',
        CHROMIUM,
        '--proxy-server',
        proxy.url,
        '--proxy-bypass',
        '127.0.0.1',
        '--output-dir',
        path.join(work, 'mcp-output'),
      ],
      stderr: 'ignore',
    }),
  );
  const theirs = async (name, input) => {
    const result = await mcp.callTool({ name, arguments: input });
    return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  };

  const rows = [];
  try {
    for (const [index, site] of sites.entries()) {
      const url = pages.url(`/${site}/`);
      await ours('browser_navigate', { url });
      await theirs('browser_navigate', { url });
      const oursRuns = [];
      const theirRuns = [];
      // Alternate who goes first, so neither always runs on a warmer machine.
      for (let run = 0; run < REPEATS; run++) {
        const order = (index + run) % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours'];
        for (const who of order) {
          const started = performance.now();
          const text =
            who === 'ours'
              ? await ours('browser_snapshot', { max_chars: 400_000 })
              : await theirs('browser_snapshot', {});
          (who === 'ours' ? oursRuns : theirRuns).push({ ms: performance.now() - started, text });
        }
      }
      const ourText = oursRuns.at(-1).text;
      const theirText = theirRuns.at(-1).text;
      const truth = await session.run(async () => {
        const snapshot = await browser.takeSnapshot(await session.activeTab(), session.refs, {
          compact: false,
          interactiveOnly: false,
          urls: false,
          maxChars: 100_000_000,
        });
        return interactiveRefs(snapshot.nodes, browser.isInteractive);
      });
      const row = {
        page: site,
        ours: {
          chars: ourText.length,
          tokens: tokens(ourText),
          ms: round(median(oursRuns.map((r) => r.ms))),
          interactive: truth.filter((ref) => ourText.includes(`[${ref}]`)).length,
        },
        playwright_mcp: {
          chars: theirText.length,
          tokens: tokens(theirText),
          ms: round(median(theirRuns.map((r) => r.ms))),
          interactive: theirText.split('\n').filter((line) => INTERACTIVE.test(line)).length,
        },
        interactive_on_page: truth.length,
      };
      row.size_ratio = round(row.ours.chars / row.playwright_mcp.chars, 3);
      row.token_ratio = round(row.ours.tokens / row.playwright_mcp.tokens, 3);
      row.latency_ratio = round(row.ours.ms / row.playwright_mcp.ms, 3);
      rows.push(row);
      console.log(
        `${site.padEnd(20)} chars ${row.ours.chars}/${row.playwright_mcp.chars} (${row.size_ratio}) ` +
          `tokens ${row.ours.tokens}/${row.playwright_mcp.tokens} ms ${row.ours.ms}/${row.playwright_mcp.ms} ` +
          `(${row.latency_ratio}) interactive ${row.ours.interactive}/${row.interactive_on_page} (mcp ${row.playwright_mcp.interactive})`,
      );
    }
  } finally {
    await session.close();
    await mcp.close();
    await pages.close();
    await proxy.close();
    rmSync(work, { recursive: true, force: true });
  }
  const metrics = {
    pages: rows.length,
    pages_dir: path.relative(ROOT, dir) || dir,
    tokenizer: 'js-tiktoken o200k_base (exact token counts for GPT-4o-family models)',
    ours: 'browser_snapshot tool, defaults (compact) with max_chars raised so no page is cut',
    playwright_mcp:
      'npm @playwright/mcp 0.0.83 browser_snapshot over MCP stdio, same /usr/bin/chromium, headless',
    latency: `median of ${REPEATS} snapshot calls per page, order alternating; includes each tool's own overhead`,
    median_size_ratio: round(median(rows.map((row) => row.size_ratio)), 3),
    median_token_ratio: round(median(rows.map((row) => row.token_ratio)), 3),
    median_latency_ratio: round(median(rows.map((row) => row.latency_ratio)), 3),
    median_chars: {
      ours: median(rows.map((row) => row.ours.chars)),
      playwright_mcp: median(rows.map((row) => row.playwright_mcp.chars)),
    },
    median_tokens: {
      ours: median(rows.map((row) => row.ours.tokens)),
      playwright_mcp: median(rows.map((row) => row.playwright_mcp.tokens)),
    },
    median_ms: {
      ours: round(median(rows.map((row) => row.ours.ms))),
      playwright_mcp: round(median(rows.map((row) => row.playwright_mcp.ms))),
    },
    interactive_missing: rows.reduce((sum, row) => sum + (row.interactive_on_page - row.ours.interactive), 0),
    per_page: rows,
  };
  const pass =
    metrics.median_size_ratio <= TARGETS.median_size_ratio &&
    metrics.median_latency_ratio <= TARGETS.median_latency_ratio &&
    metrics.interactive_missing <= TARGETS.interactive_missing;
  console.log(
    `median size ${metrics.median_size_ratio}x (tokens ${metrics.median_token_ratio}x), latency ${metrics.median_latency_ratio}x, ` +
      `interactive elements without a ref: ${metrics.interactive_missing}`,
  );
  const file = writeResults('browser-snapshot', metrics, TARGETS, pass);
  console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  return 0;
}

async function runTool(tools, name, input, workspace) {
  const tool = tools.find((candidate) => candidate.name === name);
  const result = await tool.run(tool.input.parse(input), { workspace, signal: new AbortController().signal });
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (result.isError) throw new Error(`${name}: ${text}`);
  return text;
}

function interactiveRefs(nodes, isInteractive) {
  const refs = [];
  const visit = (list) => {
    for (const node of list) {
      if (typeof node === 'string') continue;
      if (node.ref && isInteractive(node)) refs.push(node.ref);
      visit(node.children);
    }
  };
  visit(nodes);
  return refs;
}

async function serve(dir, sites) {
  const html = new Map(sites.map((site) => [`/${site}/`, readFileSync(path.join(dir, site, 'source.html'))]));
  const server = createServer((req, res) => {
    const body = html.get((req.url ?? '/').split('?')[0]);
    if (body) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    close: () => closeServer(server),
  };
}

/** Refuses every proxied request and CONNECT (403), dialing nothing. */
async function refusingProxy() {
  const server = createServer((_req, res) => res.writeHead(403).end('refused'));
  server.on('connect', (_req, socket) => socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => closeServer(server),
  };
}

function closeServer(server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
}

function round(value, digits = 1) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
