// web-extract: how close web_fetch's text comes to the article body people marked by hand, beside
// well-known extractors on the same pages. Data: a folder laid out like
// ../shared/data/article-extraction (html/<key>.html.gz, ground-truth.json {key: {url, articleBody}},
// anchors/<extractor>.json {key: {articleBody}}). Our text is the built extractor's (the code web_fetch
// runs: extractPage(html, url).text()); every text, ours and the anchors', is scored by the same code
// with the benchmark's own metric (word 4-gram shingles, per-page normalised, F1 of mean P and mean R).
// Time is per page, HTML text in and text out, no network.
// Options: --data DIR (any folder of the same shape), --no-write.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEFAULT_DATA = path.resolve(ROOT, '../shared/data/article-extraction');
const TARGETS = { f1: 0.978, precision: 0.95, p50_ms: 50 };
const WARMUP_PAGES = 5;

export async function main(args) {
  const options = parseArgs(args);
  const { extractPage } = await import(path.join(ROOT, 'packages/agent/dist/tools/web/page-extractor.js'));
  const { pageCounts, shingleScore } = await import(path.join(ROOT, 'packages/agent/dist/tools/index.js'));
  const truth = JSON.parse(readFileSync(path.join(options.data, 'ground-truth.json'), 'utf8'));
  const keys = Object.keys(truth).sort();
  const htmlOf = (key) =>
    gunzipSync(readFileSync(path.join(options.data, 'html', `${key}.html.gz`))).toString('utf8');

  // Warm-up (module loading and JIT) on a few pages, not timed.
  for (const key of keys.slice(0, WARMUP_PAGES)) extractPage(htmlOf(key), truth[key].url).text();

  const pages = [];
  for (const key of keys) {
    const html = htmlOf(key);
    const started = performance.now();
    const text = extractPage(html, truth[key].url).text();
    const ms = performance.now() - started;
    const counts = pageCounts(truth[key].articleBody, text);
    pages.push({ key, url: truth[key].url, counts, ms, ...pageScores(counts) });
  }
  const ours = shingleScore(pages.map((page) => page.counts));
  const anchors = {};
  const anchorsDir = path.join(options.data, 'anchors');
  for (const file of (existsSync(anchorsDir) ? readdirSync(anchorsDir) : [])
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const outputs = JSON.parse(readFileSync(path.join(anchorsDir, file), 'utf8'));
    const score = shingleScore(
      keys.map((key) => pageCounts(truth[key].articleBody, outputs[key]?.articleBody ?? '')),
    );
    anchors[file.slice(0, -'.json'.length)] = rounded(score);
  }
  const times = pages.map((page) => page.ms);
  const metrics = {
    data_dir: path.relative(ROOT, options.data) || '.',
    pages: pages.length,
    ...rounded(ours),
    p50_ms: round1(median(times)),
    p95_ms: round1(percentile(times, 0.95)),
    max_ms: round1(Math.max(...times)),
    anchors,
    method:
      "web_fetch's extractor as built (extractPage(html, url).text()); text scored against the people's articleBody with the benchmark's metric: \\w+ tokens, multisets of 4-gram shingles, tp/fp/fn normalised per page, precision and recall averaged over pages, F1 of the means; anchors scored by the same code on the same pages; time per page from HTML text to text, after a warm-up",
    worst_pages: [...pages]
      .sort((a, b) => a.precision + a.recall - (b.precision + b.recall))
      .slice(0, 10)
      .map(({ key, url, precision, recall }) => ({ key, url, precision, recall })),
  };
  const pass =
    ours.f1 >= TARGETS.f1 && ours.precision >= TARGETS.precision && metrics.p50_ms <= TARGETS.p50_ms;
  const line = (name, score) =>
    `${name.padEnd(16)} F1 ${score.f1.toFixed(3)}  P ${score.precision.toFixed(3)}  R ${score.recall.toFixed(3)}`;
  console.log(line('web_fetch', metrics));
  for (const [name, score] of Object.entries(anchors)) console.log(line(name, score));
  console.log(`${pages.length} pages, p50 ${metrics.p50_ms} ms, p95 ${metrics.p95_ms} ms per page`);
  if (options.write) {
    const file = writeResults('web-extract', metrics, TARGETS, pass);
    console.log(`${pass ? 'PASS' : 'FAIL'} — wrote ${path.relative(ROOT, file)}`);
  }
  return 0;
}

/** One page's precision and recall, as the benchmark counts them (1 when nothing is wrong). */
function pageScores({ tp, fp, fn }) {
  const perfect = fp === 0 && fn === 0;
  return {
    precision: round(perfect ? 1 : tp + fp > 0 ? tp / (tp + fp) : 0),
    recall: round(perfect ? 1 : tp + fn > 0 ? tp / (tp + fn) : 0),
  };
}

function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

function parseArgs(args) {
  const options = { data: DEFAULT_DATA, write: true };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--data') options.data = path.resolve(args[++i]);
    else if (arg === '--no-write') options.write = false;
    else throw new Error(`unknown argument ${arg}; use --data DIR, --no-write`);
  }
  return options;
}

const round = (value) => Math.round(value * 1000) / 1000;
const round1 = (value) => Math.round(value * 10) / 10;
const rounded = ({ f1, precision, recall }) => ({
  f1: round(f1),
  precision: round(precision),
  recall: round(recall),
});
