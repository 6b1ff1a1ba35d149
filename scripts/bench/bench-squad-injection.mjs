// subagents squad (`pnpm bench subagents squad`): how much of a prompt squad memory takes (issue 23:
// "squad memory injection ≤ 500 tokens whatever the history"), and how long building it takes.
// Histories of 10 to 20,000 entries are made of real text the method was never tuned on: LoCoMo's
// dialogue turns and the human-marked article bodies of the article-extraction benchmark (87 pages,
// many languages), from ../shared/data beside the checkout (or --data DIR), falling back to the
// small copies in test/fixtures. Entries go into the three layers with role tags at random (seeded),
// as the operator, captures and distillations would write them. Each block is counted with real
// BPE tokenizers (cl100k_base and o200k_base), fence included: the budget counts estimated tokens,
// so the real count is what can fail. Also timed: building the block from the largest history
// against merely sorting that history by recency (the least any selection must do).
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SIZES = [10, 100, 1_000, 5_000, 20_000];
const TARGETS = { injected_tokens_at_most: 500 };
const ROLES = ['RESEARCHER', 'WRITER', 'REVIEWER', 'ALL'];
const LAYERS = ['process', 'program', 'episodic'];

export async function squadInjection(args = []) {
  const memoryDist = path.join(ROOT, 'packages/memory/dist/index.js');
  if (!existsSync(memoryDist)) {
    console.error('build first: pnpm build');
    return 1;
  }
  const { formatSquadMemory } = await import(memoryDist);
  const { getEncoding } = await import(
    path.join(ROOT, 'packages/agent/node_modules/js-tiktoken/dist/index.js')
  );
  const encoders = { cl100k_base: getEncoding('cl100k_base'), o200k_base: getEncoding('o200k_base') };
  const dataDir = dataFolder(args);
  const sources = { locomo: locomoTurns(dataDir), articles: articleSentences(dataDir) };
  const rows = [];
  for (const [source, texts] of Object.entries(sources)) {
    const random = seeded(23);
    for (const size of SIZES) {
      const items = history(texts, size, random);
      const child = { role: 'researcher', task: texts[Math.floor(random() * texts.length)] };
      const block = formatSquadMemory('bench', items, child);
      const tokens = Object.fromEntries(
        Object.entries(encoders).map(([name, encoder]) => [name, encoder.encode(block.text).length]),
      );
      rows.push({ source, entries: size, estimated: block.tokens, ...tokens, left_out: block.leftOut });
    }
  }
  // Time: the largest history, many times, against sorting it by recency alone.
  const largest = history(sources.articles, SIZES.at(-1), seeded(7));
  const format = [];
  const sort = [];
  for (let round = 0; round < 15; round += 1) {
    let started = performance.now();
    formatSquadMemory('bench', largest, { role: 'writer', task: 'summarise the week' });
    format.push(performance.now() - started);
    started = performance.now();
    [...largest].sort((a, b) => b.updated_at - a.updated_at);
    sort.push(performance.now() - started);
  }
  const most = Math.max(...rows.flatMap((row) => [row.cl100k_base, row.o200k_base]));
  const metrics = {
    load_average_1m: Math.round(loadavg()[0] * 100) / 100,
    data: dataDir ?? 'test/fixtures (no ../shared/data)',
    most_injected_tokens: most,
    rows,
    build_from_20000_p50_ms: round(median(format)),
    sort_20000_by_recency_p50_ms: round(median(sort)),
    method:
      'histories of real sentences (LoCoMo turns, article-extraction bodies) spread over the process/program/episodic layers with random role tags (seed 23); formatSquadMemory for a researcher on a task drawn from the same text; the block, fence included, counted with js-tiktoken cl100k_base and o200k_base',
  };
  const pass = most <= TARGETS.injected_tokens_at_most;
  const file = writeResults('subagents-squad', metrics, TARGETS, pass);
  for (const row of rows)
    console.log(
      `  ${row.source.padEnd(8)} ${String(row.entries).padStart(6)} entries: ${row.cl100k_base} tokens (cl100k), ${row.o200k_base} (o200k), estimate ${row.estimated}, ${row.left_out} left out`,
    );
  console.log(
    `subagents squad: the most squad memory injected ${most} tokens (target ≤ ${TARGETS.injected_tokens_at_most}); built from 20,000 entries in ${metrics.build_from_20000_p50_ms} ms p50 (sorting them alone: ${metrics.sort_20000_by_recency_p50_ms} ms) → ${file}`,
  );
  return pass ? 0 : 1;
}

function dataFolder(args) {
  const flag = args.indexOf('--data');
  const dir = flag >= 0 ? args[flag + 1] : path.join(ROOT, '../shared/data');
  return dir && existsSync(dir) ? dir : undefined;
}

function locomoTurns(dataDir) {
  const shared = dataDir && path.join(dataDir, 'locomo/locomo-dev.json');
  if (shared && existsSync(shared)) {
    const samples = JSON.parse(readFileSync(shared, 'utf8'));
    return samples.flatMap((sample) =>
      Object.entries(sample.conversation)
        .filter(([key, value]) => /^session_\d+$/.test(key) && Array.isArray(value))
        .flatMap(([, turns]) => turns.map((turn) => turn.text)),
    );
  }
  const fixture = JSON.parse(
    readFileSync(path.join(ROOT, 'test/fixtures/conversation/conversation.json'), 'utf8'),
  );
  return fixture.sessions.flatMap((session) => (session.turns ?? session).map((turn) => turn.text));
}

function articleSentences(dataDir) {
  const shared = dataDir && path.join(dataDir, 'article-extraction/ground-truth.json');
  const file =
    shared && existsSync(shared)
      ? shared
      : path.join(ROOT, 'test/fixtures/article-extraction/ground-truth.json');
  const pages = Object.values(JSON.parse(readFileSync(file, 'utf8')));
  return pages
    .flatMap((page) => page.articleBody.split(/(?<=[.!?。])\s+|\n+/))
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length >= 20);
}

/** `size` entries as the store would hold them: newest last, each in a layer, most with a role tag. */
function history(texts, size, random) {
  return Array.from({ length: size }, (_, index) => {
    const category = LAYERS[Math.floor(random() * LAYERS.length)];
    const text = texts[Math.floor(random() * texts.length)];
    const role = ROLES[Math.floor(random() * ROLES.length)];
    const content =
      category === 'process'
        ? text
        : category === 'episodic'
          ? `[${role}] ${text} (session s${Math.floor(index / 5)})`
          : `[${role}] ${text}`;
    return {
      id: index + 1,
      scope: 'squad:bench',
      category,
      abstract: text.slice(0, 80),
      content,
      writer: 'bench',
      created_at: index,
      updated_at: index,
    };
  });
}

function seeded(seed) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function round(value) {
  return Math.round(value * 100) / 100;
}
