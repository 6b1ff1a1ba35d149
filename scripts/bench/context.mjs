// context: the agent's context management over a 200-turn conversation with tool output, generated
// deterministically here (seeded), played through the real ContextManager the way the loop calls
// it (one prepare per LLM call). The fast tier (flush and summariser) is a server on loopback whose
// answers are derived from the text each call was sent (bench-context-fast-tier.mjs states the
// model), so a fact survives only along the path the real code gives it; memory is a real
// MemoryEngine on a temporary SQLite file. Measured side by side in one run for the three strategies:
// - peak prompt tokens as a share of the model's window. Target: the prompt leaves room for the
//   longest answer the model may write (gpt-4o: 16,384 output tokens of its 128K), so no call can
//   be refused or cut short for length: peak ≤ 1 − 16,384/128,000 ≈ 0.87. (Not compact_at: the
//   prompt sent is below compact_at whenever compaction works at all, so that target could not fail
//   while compaction ran; this one fails only when the prompt really crowds out the answer.);
// - total prompt tokens sent (main calls + every fast-tier call) against the naive baseline that
//   sends the whole history on every call (target ≤ 0.35×);
// - whether a fact stated in the first message ("…the staging database port is 6543") is still in
//   the last prompt, and in which part of it (target, for the default strategy: yes);
// - what the context side injects into the system prompt (its memory block), how much the flushes
//   grew a 50 KB MEMORY.md, and (with the loop's workspace bootstrap, packages/agent/dist/workspace)
//   how many characters of that workspace reach the prompt (target ≤ 40K) and whether the newest
//   flushed fact is still among them.
// Needs `pnpm build` first.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDerivingFastTier } from './bench-context-fast-tier.mjs';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const MODEL = 'openai/gpt-4o';
const WINDOW = 128_000;
const TURNS = 200;
const MEMORY_MD_BYTES = 50 * 1024;
const EARLY_FACT = 'For the record: my name is Ines Varga and the staging database port is 6543.';
/** gpt-4o's largest answer: the prompt must leave the window this much room. */
const MAX_OUTPUT_TOKENS = 16_384;
const EARLY_FACT_IN_PROMPT = /staging database port is 6543\b/;
const TARGETS = {
  peak_ratio_at_most: round4(1 - MAX_OUTPUT_TOKENS / WINDOW),
  total_vs_naive_at_most: 0.35,
  early_fact_in_last_prompt: true,
  bootstrap_chars_at_most: 40_000,
};
const SETTINGS = { flush_at: 0.6, compact_at: 0.7, wrap_up_at: 0.8, keep_turns: 4 };

export async function main() {
  if (!existsSync(dist('agent/dist/context/index.js'))) {
    console.error('build first: pnpm build');
    return 1;
  }
  const modules = await loadModules();
  const turns = generateConversation(TURNS, mulberry32(2026));
  const counter = new modules.TokenCounter();
  const runs = {};
  let bootstrap;
  for (const strategy of ['adaptive', 'progressive', 'truncate']) {
    const measure =
      strategy === 'adaptive'
        ? async (workspace) => (bootstrap = await measureBootstrap(workspace))
        : undefined;
    runs[strategy] = await play(modules, counter, turns, strategy, measure);
    const run = runs[strategy];
    console.log(
      `${strategy.padEnd(11)} peak ${(run.peak_ratio * 100).toFixed(2)}% of ${WINDOW}, total ${run.total_vs_naive}× naive ` +
        `(main ${run.main_vs_naive}×), ${run.compactions} compactions, ${run.flushes} flushes, ` +
        `early fact kept: ${run.early_fact_in_last_prompt} (${run.early_fact_found_in})`,
    );
  }
  const adaptive = runs.adaptive;
  const metrics = {
    method:
      `${TURNS} seeded turns played through the real ContextManager (prepare per LLM call), ${MODEL} ${WINDOW} window, ` +
      `settings ${JSON.stringify(SETTINGS)}. Fast tier: a loopback server whose flush facts and summaries are derived ` +
      'only from the text each call was sent (user sentences with names/numbers, files read, last test run; ' +
      'summary parts within 250 words, oldest items out first), so a fact reaches the prompt only through the ' +
      'real flush/summary/facts path. early fact: the last prompt matches /staging database port is 6543/; ' +
      `peak target = 1 - ${MAX_OUTPUT_TOKENS} max output / window. pass: the default strategy (adaptive) meets all targets`,
    model: MODEL,
    window_tokens: WINDOW,
    turns: TURNS,
    llm_calls: adaptive.llm_calls,
    naive_prompt_tokens: adaptive.naive_prompt_tokens,
    peak_ratio: adaptive.peak_ratio,
    total_vs_naive: adaptive.total_vs_naive,
    early_fact_in_last_prompt: adaptive.early_fact_in_last_prompt,
    early_fact_found_in: adaptive.early_fact_found_in,
    memory_md_start_bytes: MEMORY_MD_BYTES,
    memory_md_growth_bytes: adaptive.memory_md_growth_bytes,
    max_memory_block_chars: adaptive.max_memory_block_chars,
    ...bootstrap,
    strategies: runs,
  };
  // Without the loop's bootstrap module built there is nothing to hold to the 40K target.
  const bootstrapFits =
    bootstrap.bootstrap_injected_chars === null ||
    bootstrap.bootstrap_injected_chars <= TARGETS.bootstrap_chars_at_most;
  const pass =
    adaptive.peak_prompt_tokens / WINDOW <= TARGETS.peak_ratio_at_most &&
    adaptive.total_vs_naive <= TARGETS.total_vs_naive_at_most &&
    adaptive.early_fact_in_last_prompt === TARGETS.early_fact_in_last_prompt &&
    bootstrapFits;
  if (bootstrap.bootstrap_injected_chars !== null) {
    console.log(
      `workspace with a 50 KB MEMORY.md: ${bootstrap.bootstrap_injected_chars} chars injected, ` +
        `newest flushed fact visible: ${bootstrap.newest_flushed_fact_visible}`,
    );
  }
  const file = writeResults('context', metrics, TARGETS, pass);
  console.log(`${pass ? 'PASS' : 'FAIL'} → ${path.relative(ROOT, file)}`);
  return pass ? 0 : 1;
}

async function loadModules() {
  const require = createRequire(dist('agent/package.json'));
  const context = await import(dist('agent/dist/context/index.js'));
  const { MemoryEngine } = await import(dist('memory/dist/index.js'));
  const { default: OpenAI } = await import(require.resolve('openai'));
  const { pino } = await import(require.resolve('pino'));
  return { ...context, MemoryEngine, OpenAI, pino };
}

/**
 * What the loop's workspace bootstrap injects from the workspace a run left behind (a 50 KB
 * MEMORY.md with the flushes' facts appended), when that module is built; null otherwise.
 */
async function measureBootstrap(workspace) {
  const module = dist('agent/dist/workspace/bootstrap-files.js');
  if (!existsSync(module)) {
    return { bootstrap_injected_chars: null, bootstrap_note: 'packages/agent/dist/workspace is not built' };
  }
  const { loadBootstrapFiles } = await import(module);
  // AGENTS.md and SOUL.md come from the host; with none held there, the loop uses the built-in ones.
  const { INSTRUCTION_TEMPLATES } = await import(dist('agent/dist/workspace/workspace-scaffold.js'));
  const files = await loadBootstrapFiles(workspace, INSTRUCTION_TEMPLATES);
  const memoryLines = readFileSync(path.join(workspace, 'MEMORY.md'), 'utf8').trimEnd().split('\n');
  const injected = files.map((file) => file.text).join('\n');
  return {
    bootstrap_injected_chars: files.reduce((sum, file) => sum + file.text.length, 0),
    bootstrap_memory_md_truncated: files.some((file) => file.name === 'MEMORY.md' && file.truncated),
    newest_flushed_fact_visible: injected.includes(memoryLines.at(-1)),
  };
}

/** One strategy over the whole conversation, in a fresh workspace and database. */
async function play(modules, counter, turns, strategy, measureWorkspace) {
  const llm = await startDerivingFastTier();
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-context-'));
  const workspace = path.join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(path.join(workspace, 'MEMORY.md'), memoryMarkdown(MEMORY_MD_BYTES));
  const memory = modules.MemoryEngine.open({ file: path.join(dir, 'memory.db') });
  const client = new modules.OpenAI({ baseURL: llm.url, apiKey: 'bench', maxRetries: 0 });
  const manager = modules.createContextManager({
    llm: async () => client,
    memory: () => memory,
    workspaceDir: workspace,
    database: path.join(dir, 'agent.db'),
    settings: { ...SETTINGS, strategy },
    logger: modules.pino({ level: 'silent' }),
    tokenCounter: counter,
  });
  const system = {
    role: 'system',
    content: 'You are Atlas, an engineering agent. Use tools; answer briefly.',
  };
  const notices = [];
  const stored = [];
  let naive = 0;
  let sent = 0;
  let peak = 0;
  let calls = 0;
  let maxBlock = 0;
  let wrapUpCalls = 0;
  let last;
  const prepareMs = [];
  try {
    for (const turn of turns) {
      const thisTurn = [turn.user];
      for (let round = 0; round <= turn.rounds.length; round++) {
        if (round > 0) thisTurn.push(...turn.rounds[round - 1]);
        const messages = [system, ...stored, ...thisTurn];
        naive += await counter.countPrompt(MODEL, messages);
        const started = performance.now();
        last = await manager.prepare({
          conversationId: 'bench',
          model: MODEL,
          messages,
          emit: (event) => event.type === 'notice' && notices.push(event.message),
          signal: AbortSignal.timeout(60_000),
        });
        prepareMs.push(performance.now() - started);
        calls++;
        sent += last.promptTokens;
        peak = Math.max(peak, last.promptTokens);
        const systemText = last.messages[0].content;
        maxBlock = Math.max(maxBlock, systemText.length - system.content.length);
        if (systemText.includes('% full. Finish the current step')) wrapUpCalls++;
      }
      stored.push(...thisTurn, turn.answer);
    }
    await measureWorkspace?.(workspace);
    let fastTokens = 0;
    for (const request of llm.requests) fastTokens += await counter.countPrompt(MODEL, request.body.messages);
    const kinds = llm.requests.map((request) => request.body.messages[1].content.split('\n', 1)[0]);
    return {
      llm_calls: calls,
      naive_prompt_tokens: naive,
      main_prompt_tokens: sent,
      fast_tier_prompt_tokens: fastTokens,
      fast_tier_calls: llm.requests.length,
      flushes: notices.filter((notice) => /^(Saved|Checked) /.test(notice)).length,
      flush_calls: kinds.filter((kind) => kind.startsWith('Transcript:')).length,
      compactions: notices.filter((notice) => /^(Compacted|Dropped)/.test(notice)).length,
      summariser_calls: kinds.filter((kind) => kind.startsWith('Current memory:')).length,
      peak_prompt_tokens: peak,
      peak_ratio: round4(peak / WINDOW),
      main_vs_naive: round3(sent / naive),
      total_vs_naive: round3((sent + fastTokens) / naive),
      early_fact_in_last_prompt: earlyFactPlace(last.messages) !== 'nowhere',
      early_fact_found_in: earlyFactPlace(last.messages),
      wrap_up_calls: wrapUpCalls,
      max_memory_block_chars: maxBlock,
      memory_md_growth_bytes: readFileSync(path.join(workspace, 'MEMORY.md')).length - MEMORY_MD_BYTES,
      prepare_p50_ms: round3(median(prepareMs)),
    };
  } finally {
    manager.close();
    memory.close();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Where the early fact is in a prompt: a message of the conversation itself, or a section of the
 * system prompt's conversation memory (the heading above it); 'nowhere' when it is gone.
 */
function earlyFactPlace(messages) {
  const [system, ...rest] = messages;
  if (rest.some((message) => EARLY_FACT_IN_PROMPT.test(JSON.stringify(message.content)))) return 'messages';
  const text = typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content ?? '');
  const at = text.search(EARLY_FACT_IN_PROMPT);
  if (at === -1) return 'nowhere';
  const headings = [
    'USER PROFILE:',
    'CONVERSATION CONTEXT:',
    'DROPPED WITHOUT A SUMMARY:',
    'FACTS SAVED FROM THIS CONVERSATION:',
  ];
  const above = headings
    .map((heading) => ({ heading, index: text.lastIndexOf(heading, at) }))
    .filter(({ index }) => index !== -1)
    .sort((a, b) => b.index - a.index)[0];
  return above ? above.heading.slice(0, -1).toLowerCase() : 'system prompt';
}

/**
 * 200 turns of an engineering chat: a request, 0–3 tool rounds (file reads, command output, JSON
 * from an API: 150–1,350 words each) and an answer. Seeded, so every run plays the same words.
 */
function generateConversation(count, random) {
  const words = vocabulary();
  const pick = () => words[Math.floor(random() * words.length)];
  const prose = (n) => Array.from({ length: n }, pick).join(' ');
  const tools = [
    ['read_file', (i) => ({ path: `src/billing/module-${i}.ts` }), (n) => codeLike(pick, n)],
    ['run_command', () => ({ command: 'pnpm test --filter billing' }), (n) => logLike(pick, n, random)],
    [
      'http_request',
      (i) => ({ url: `https://api.internal/v1/invoices?page=${i}` }),
      (n) => jsonLike(pick, n, random),
    ],
  ];
  const turns = [];
  for (let index = 0; index < count; index++) {
    const user = {
      role: 'user',
      content:
        index === 0
          ? `${EARLY_FACT} Let us start the billing migration.`
          : `${prose(20 + Math.floor(random() * 60))}?`,
    };
    const rounds = [];
    const roundCount = Math.floor(random() * 4);
    for (let round = 0; round < roundCount; round++) {
      const [name, args, output] = tools[Math.floor(random() * tools.length)];
      const id = `call_${index}_${round}`;
      rounds.push([
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args(index)) } }],
        },
        { role: 'tool', tool_call_id: id, content: output(150 + Math.floor(random() * 1_200)) },
      ]);
    }
    turns.push({
      user,
      rounds,
      answer: { role: 'assistant', content: prose(60 + Math.floor(random() * 140)) },
    });
  }
  return turns;
}

function codeLike(pick, words) {
  const lines = [];
  for (let written = 0; written < words; written += 6) {
    lines.push(`  const ${pick()}${pick()} = await ${pick()}.${pick()}(${pick()}, '${pick()}');`);
  }
  return `export async function run() {\n${lines.join('\n')}\n}`;
}

function logLike(pick, words, random) {
  const lines = [];
  for (let written = 0; written < words; written += 8) {
    const status = random() < 0.9 ? '✓' : '✗';
    lines.push(
      `${status} ${pick()} ${pick()} ${pick()} (${Math.floor(random() * 900)} ms) ${pick()} ${pick()}`,
    );
  }
  return lines.join('\n');
}

function jsonLike(pick, words, random) {
  const items = [];
  for (let written = 0; written < words; written += 7) {
    items.push({
      id: Math.floor(random() * 1e6),
      customer: `${pick()} ${pick()}`,
      status: pick(),
      total: Math.floor(random() * 1e5) / 100,
    });
  }
  return JSON.stringify({ items }, null, 1);
}

function memoryMarkdown(bytes) {
  const random = mulberry32(7);
  const words = vocabulary();
  let text = '# Memory\n';
  while (text.length < bytes) {
    text += `- ${Array.from({ length: 12 }, () => words[Math.floor(random() * words.length)]).join(' ')}\n`;
  }
  return text.slice(0, bytes);
}

function vocabulary() {
  return (
    'invoice customer billing queue retry worker module service deploy staging branch review test ' +
    'failure timeout config schema migration payment refund ledger account balance currency tax ' +
    'report export import handler router request response status error cache index table column ' +
    'the a to of and in for with on is it that this we should can will not be when then'
  ).split(' ');
}

function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function round4(value) {
  return Math.round(value * 10_000) / 10_000;
}

function round3(value) {
  return Math.round(value * 1000) / 1000;
}
