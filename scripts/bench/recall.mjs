// recall: the cost of automatic memory recall (issue 22) in the running agent's configuration: the
// local embedder, hybrid search, the default budget (2,000 characters). A memory of 2,000 facts
// (generated here, seeded: 1,950 about a synthetic company's people, projects and places, and 50
// planted facts with a distinctive detail each) and a 300-turn chat played through the real recall
// code (packages/agent/dist/memory-recall) the way the loop calls it: the stored history grows with
// each turn's recall block, and a compaction every 40 turns drops all but the last 8 messages from
// the view (so memories may come back). Measured:
// - tokens injected per turn (p50, p95 over every turn, and the share of turns with any recall);
// - the time recall adds to a turn (search, dedup against the prompt, formatting): p50, p95.
//   Target: p50 ≤ 10 ms;
// - how often the first question about a planted fact brings that fact into the prompt (not a
//   target: the retrieval quality is memory-locomo's subject; shown so the cost has its benefit).
// - with a provider embedder (the agent's, cached, over HTTP): embedding calls per turn. Target: at
//   most one (the query; the memories' vectors are stored).
// Needs `pnpm build` first.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const FACTS = 1_950;
const PLANTED = 50;
const TURNS = 300;
const COMPACT_EVERY_TURNS = 40;
const VIEW_AFTER_COMPACTION = 8;
const RECALL_CHARS = 2_000;
const TARGETS = { added_ms_p50_at_most: 10, provider_embedding_calls_per_turn_at_most: 1 };

const FIRST = ['Ana', 'Bo', 'Chen', 'Dara', 'Eli', 'Femi', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kai', 'Lea'];
const LAST = ['Quint', 'Lind', 'Varga', 'Okafor', 'Moreau', 'Sato', 'Berg', 'Costa', 'Novak', 'Reyes'];
const PROJECTS = ['Atlas', 'Beacon', 'Cobalt', 'Delta', 'Ember', 'Fjord', 'Granite', 'Harbor', 'Iris'];
const PLACES = ['Lisbon', 'Oslo', 'Nairobi', 'Osaka', 'Lima', 'Tallinn', 'Porto', 'Quito', 'Riga'];
const TOPICS = ['budget', 'launch date', 'design review', 'hiring plan', 'security audit', 'roadmap'];
const CHATTER = [
  'Thanks, that helps.',
  'Can you tidy up the wording of the last paragraph?',
  'What is a good way to structure a weekly status email?',
  'Summarise what we discussed so far in two lines.',
  'Give me three names for a retrospective format.',
];

export async function main() {
  if (!existsSync(dist('agent/dist/memory-recall/index.js'))) {
    console.error('build first: pnpm build');
    return 1;
  }
  const memory = await import(dist('memory/dist/index.js'));
  const recallModule = await import(dist('agent/dist/memory-recall/index.js'));
  const { memoryEmbedder } = await import(dist('agent/dist/memory/agent-memory-options.js'));
  const { startFakeLlm } = await import(dist('testkit/dist/index.js'));
  const plan = chatPlan(mulberry32(22));
  const local = await measure({ memory, recallModule, plan, embedder: memory.createLocalEmbedder() });
  // The provider path: the agent's own embedder (through the host's /v1/embeddings, cached by
  // content hash), here against testkit's OpenAI-compatible endpoint on loopback.
  const provider = await startFakeLlm({ script: { rules: [], default: { text: 'unused' } } });
  let viaProvider;
  try {
    const embedder = memoryEmbedder('upstream/text-embedding-test', {
      // The agent appends /v1 to the host's address; testkit's url already ends with it.
      meshUrl: provider.url.replace(/\/v1\/?$/, ''),
      token: 'bench',
    });
    const callsBefore = () => provider.requests.filter((request) => request.path === '/v1/embeddings').length;
    viaProvider = await measure({ memory, recallModule, plan, embedder, embeddingCalls: callsBefore });
  } finally {
    await provider.close();
  }
  const metrics = {
    ...local.metrics,
    provider_embedder: {
      embedding_calls_per_turn_max: viaProvider.callsPerTurnMax,
      embedding_calls_per_turn_mean: round(viaProvider.callsPerTurnMean),
      added_ms_p50: viaProvider.metrics.added_ms_p50,
      added_ms_p95: viaProvider.metrics.added_ms_p95,
      planted_fact_recalled_share: viaProvider.metrics.planted_fact_recalled_share,
    },
  };
  const pass =
    metrics.added_ms_p50 <= TARGETS.added_ms_p50_at_most &&
    metrics.provider_embedder.embedding_calls_per_turn_max <=
      TARGETS.provider_embedding_calls_per_turn_at_most;
  const file = writeResults(
    'recall',
    {
      ...metrics,
      method:
        "real recall code (packages/agent/dist/memory-recall) on a MemoryEngine with the local embedder, 2,000 seeded facts (50 planted), 300 turns (a planted-fact question, a project question, chatter, in turn); the history grows with each recall block; a compaction every 40 turns leaves the last 8 messages in view. Tokens are the agent's estimate of the block (0 when nothing is recalled). added_ms = search + dedup + formatting per turn. provider_embedder: the same chat with the agent's provider embedder (cached, over HTTP to testkit's /v1/embeddings on loopback), counting embedding calls made during each turn's recall.",
    },
    TARGETS,
    pass,
  );
  console.log(
    `recall: tokens injected per turn p50 ${metrics.injected_tokens_p50}, p95 ${metrics.injected_tokens_p95} ` +
      `(${Math.round(metrics.turns_with_recall_share * 100)}% of turns recall something); added latency ` +
      `p50 ${metrics.added_ms_p50} ms, p95 ${metrics.added_ms_p95} ms (target p50 ≤ ${TARGETS.added_ms_p50_at_most}); ` +
      `planted fact recalled ${local.plantedRecalled}/${local.plantedAsked}; provider embedder: at most ` +
      `${metrics.provider_embedder.embedding_calls_per_turn_max} embedding call a turn (mean ` +
      `${metrics.provider_embedder.embedding_calls_per_turn_mean}), p50 ${metrics.provider_embedder.added_ms_p50} ms → ${file}`,
  );
  return pass ? 0 : 1;
}

/** The seeded memory and the 300 turns, generated once so both embedders face the same chat. */
function chatPlan(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const facts = Array.from({ length: FACTS }, () => {
    const person = `${pick(FIRST)} ${pick(LAST)}`;
    return {
      content: `${person} works on project ${pick(PROJECTS)} from ${pick(PLACES)} and owns its ${pick(TOPICS)}.`,
      category: 'entities',
      source: random() < 0.5 ? 'tool' : 'flush',
    };
  });
  const planted = Array.from({ length: PLANTED }, (_, index) => ({
    content: `The access badge for lab room ${100 + index} is kept by ${pick(FIRST)} in locker ${7_000 + index * 13}.`,
    category: 'entities',
    source: 'tool',
  }));
  let askedPlanted = 0;
  const turns = Array.from({ length: TURNS }, (_, turn) => {
    const kind = turn % 3;
    if (kind === 0 && askedPlanted < PLANTED) {
      const index = askedPlanted++;
      return {
        message: `Who keeps the access badge for lab room ${100 + index}?`,
        expected: planted[index].content,
      };
    }
    if (kind === 1)
      return {
        message: `What is the ${pick(TOPICS)} of project ${pick(PROJECTS)}, and who in ${pick(PLACES)} owns it?`,
      };
    return { message: pick(CHATTER) };
  });
  return { facts: [...facts, ...planted], turns };
}

/** Play the chat through the real recall code on a fresh engine with `embedder`. */
async function measure({ memory, recallModule, plan, embedder, embeddingCalls }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'recall-bench-'));
  const engine = memory.MemoryEngine.open({
    file: path.join(dir, 'memory.db'),
    embedder,
    defaultScopes: ['agent:bench', 'global'],
  });
  try {
    await engine.save(plan.facts, { dedup: false });
    const recall = recallModule.createMemoryRecall({
      memory: () => engine,
      recallChars: RECALL_CHARS,
      ownScope: 'agent:bench',
      // Recall logs only a failing store; a failure here should stop the bench, not be logged.
      logger: {
        warn: (fields) => {
          throw fields.err;
        },
      },
    });
    // Warm up: the embedder's tables and SQLite's statements, as the agent's first turn would.
    await recall.recall({ conversationId: 'warm', message: 'warm up', systemPrompt: '', history: [] });
    const systemPrompt = 'You are bench, an agent in the bench mesh.';
    const history = [];
    const tokens = [];
    const ms = [];
    const calls = [];
    let plantedAsked = 0;
    let plantedRecalled = 0;
    let held = 0;
    for (const [turn, { message, expected }] of plan.turns.entries()) {
      const before = embeddingCalls?.() ?? 0;
      const result = await recall.recall({ conversationId: 'c', message, systemPrompt, history });
      calls.push((embeddingCalls?.() ?? 0) - before);
      tokens.push(result.tokens);
      ms.push(result.ms);
      held += result.held;
      if (expected) {
        plantedAsked += 1;
        if (result.text.includes(expected)) plantedRecalled += 1;
      }
      history.push(
        { role: 'user', content: recallModule.withRecallBlock(message, result) },
        { role: 'assistant', content: `Noted (turn ${turn}).` },
      );
      // The view the loop's context manager would send: everything, or after a compaction the tail.
      const compacted = Math.floor(turn / COMPACT_EVERY_TURNS) > 0;
      const sinceCompaction = (turn % COMPACT_EVERY_TURNS) * 2 + 2;
      const visible = compacted ? history.slice(-Math.max(VIEW_AFTER_COMPACTION, sinceCompaction)) : history;
      recall.views.remember('c', [{ role: 'system', content: systemPrompt }, ...visible]);
    }
    const withRecall = tokens.filter((value) => value > 0);
    return {
      plantedAsked,
      plantedRecalled,
      callsPerTurnMax: Math.max(...calls),
      callsPerTurnMean: calls.reduce((sum, value) => sum + value, 0) / calls.length,
      metrics: {
        embedder: engine.modes?.embedder ?? embedder.id,
        memories: plan.facts.length,
        turns: TURNS,
        recall_chars: RECALL_CHARS,
        load_average_1m: round(loadavg()[0]),
        injected_tokens_p50: median(tokens),
        injected_tokens_p95: percentile(tokens, 0.95),
        injected_tokens_p50_when_recalled: withRecall.length > 0 ? median(withRecall) : 0,
        turns_with_recall_share: round(withRecall.length / TURNS),
        added_ms_p50: round(median(ms)),
        added_ms_p95: round(percentile(ms, 0.95)),
        left_out_as_held: held,
        planted_fact_recalled_share: round(plantedRecalled / plantedAsked),
      },
    };
  } finally {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function round(value) {
  return Math.round(value * 100) / 100;
}

function mulberry32(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
