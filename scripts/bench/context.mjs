// context: the agent's context management over a 200-turn conversation with tool output, generated
// deterministically here (seeded), played through the real ContextManager the way the loop calls
// it (one prepare per LLM call). The fast tier (flush and summariser) is testkit's scripted LLM on
// loopback; memory is a real MemoryEngine on a temporary SQLite file. Measured side by side in one
// run for the three strategies:
// - peak prompt tokens as a share of the model's window (target: below compact_at, 70%);
// - total prompt tokens sent (main calls + every fast-tier call) against the naive baseline that
//   sends the whole history on every call (target ≤ 0.35×);
// - whether a fact stated in the first message is still in the last prompt;
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
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const MODEL = 'openai/gpt-4o';
const WINDOW = 128_000;
const TURNS = 200;
const MEMORY_MD_BYTES = 50 * 1024;
const EARLY_FACT = 'For the record: my name is Ines Varga and the staging database port is 6543.';
const TARGETS = { peak_ratio_below: 0.7, total_vs_naive_at_most: 0.35, bootstrap_chars_at_most: 40_000 };
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
        `early fact kept: ${run.early_fact_in_last_prompt}`,
    );
  }
  const adaptive = runs.adaptive;
  const metrics = {
    model: MODEL,
    window_tokens: WINDOW,
    turns: TURNS,
    llm_calls: adaptive.llm_calls,
    naive_prompt_tokens: adaptive.naive_prompt_tokens,
    peak_ratio: adaptive.peak_ratio,
    total_vs_naive: adaptive.total_vs_naive,
    early_fact_in_last_prompt: adaptive.early_fact_in_last_prompt,
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
    adaptive.peak_prompt_tokens / WINDOW < TARGETS.peak_ratio_below &&
    adaptive.total_vs_naive <= TARGETS.total_vs_naive_at_most &&
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
  const { startFakeLlm } = await import(dist('testkit/dist/index.js'));
  const { MemoryEngine } = await import(dist('memory/dist/index.js'));
  const { default: OpenAI } = await import(require.resolve('openai'));
  const { pino } = await import(require.resolve('pino'));
  return { ...context, startFakeLlm, MemoryEngine, OpenAI, pino };
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
  const files = await loadBootstrapFiles(workspace);
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
  const llm = await modules.startFakeLlm({ script: fastTierScript() });
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
      early_fact_in_last_prompt: last.messages.some((message) =>
        JSON.stringify(message.content).includes('6543'),
      ),
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

/** The fast tier's answers: facts for flush transcripts (the early fact when it is there), a summary. */
function fastTierScript() {
  const fact = (key, value, category) => ({ key, value, category });
  const summary = {
    user_profile: 'Ines Varga, backend engineer; wants short answers and exact commands.',
    conversation:
      'Migrating the billing service: reviewed modules, ran the test suite and fixed failing cases one by one; ' +
      'open: the flaky retry test and the staging rollout.',
    facts: [fact('current task', 'migrating the billing service to the new queue', 'events')],
  };
  return {
    models: ['fast', MODEL],
    rules: [
      {
        match: { model: 'fast', last_message_regex: '^Transcript:[\\s\\S]*6543' },
        reply: {
          text: JSON.stringify({
            facts: [
              fact('user name', 'Ines Varga', 'profile'),
              fact('staging database port', 'The staging database listens on port 6543', 'entities'),
            ],
          }),
        },
      },
      {
        match: { model: 'fast', last_message_regex: '^Transcript:' },
        reply: {
          text: JSON.stringify({ facts: [fact('test status', 'billing tests mostly green', 'events')] }),
        },
      },
      {
        match: { model: 'fast', last_message_regex: '^Current memory:' },
        reply: { text: JSON.stringify(summary) },
      },
    ],
  };
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
