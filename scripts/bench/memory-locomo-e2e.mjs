// memory-locomo-e2e: LoCoMo questions answered end to end by a running agent (issue 22), judged by
// an LLM. Needs a real provider: OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible
// endpoint); without a key it says it skipped and exits 0, writing nothing.
// What runs: a mesh (process runtime) with one agent per conversation, its memory embedded with
// the provider's embedder through the host; the conversation's turns are imported into the
// agent's memory (`openlegion memory AGENT import`), then each question is sent in a fresh
// conversation (so only memory, recall and memory_search can answer), and the judge model grades
// the answer against LoCoMo's gold answer (CORRECT/WRONG, the LoCoMo/mem0 judge protocol).
// Options: --data FILE, --questions N (per conversation, 50), --conversations N (1),
// --model provider/model (openai/gpt-4.1-mini), --embedder provider/model
// (openai/text-embedding-3-small), --judge MODEL (gpt-4.1-mini).
// Needs `pnpm build` first.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResults } from './bench-results.mjs';
import { loadSamples, scoredQuestions, turnsOf } from './memory/locomo-data.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'packages/cli/bundle/bin.mjs');
const DEFAULT_DATA = path.resolve(ROOT, '../shared/data/locomo/locomo-dev.json');
const JUDGE_PROMPT = [
  'Your task is to label an answer to a question as CORRECT or WRONG. You will be given a question,',
  'a gold (ground truth) answer, and a generated answer. Be generous: if the generated answer talks',
  'about the same topic as the gold answer, or refers to the same date or period in another format,',
  'it is CORRECT. Reply with one word: CORRECT or WRONG.',
].join('\n');

export async function main(args) {
  const options = parseArgs(args);
  const key = process.env.OPENAI_API_KEY;
  if (!key) {
    console.log(
      'memory-locomo-e2e: skipped: no provider key in the environment (set OPENAI_API_KEY, and OPENAI_BASE_URL for an OpenAI-compatible endpoint, to run it)',
    );
    return 0;
  }
  const baseUrl = (process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/$/, '');
  const samples = loadSamples(options.data).slice(0, options.conversations);
  const dir = mkdtempSync(path.join(tmpdir(), 'locomo-e2e-'));
  const meshFile = path.join(dir, 'mesh.yaml');
  const agents = samples.map((_, index) => `reader-${index + 1}`);
  writeFileSync(meshFile, meshYaml({ agents, baseUrl, options }));
  const cli = (...cliArgs) => run(process.execPath, [CLI, ...cliArgs, '--config', meshFile]);
  const started = await cli('start', '--detach');
  if (started.code !== 0) {
    console.error(`memory-locomo-e2e: the mesh did not start:\n${started.stdout}${started.stderr}`);
    rmSync(dir, { recursive: true, force: true });
    return 1;
  }
  const results = [];
  try {
    const operatorToken = readFileSync(path.join(dir, 'data', 'operator-token'), 'utf8').trim();
    const port = Number(/port: (\d+)/.exec(readFileSync(meshFile, 'utf8'))?.[1]);
    for (const [index, sample] of samples.entries()) {
      const agent = agents[index];
      const imported = await importConversation(cli, dir, agent, sample);
      console.log(
        `${agent}: ${imported} turns of ${sample.sample_id ?? `conversation ${index + 1}`} imported`,
      );
      const questions = scoredQuestions(sample).slice(0, options.questions);
      for (const [n, qa] of questions.entries()) {
        const answer = await ask({ port, operatorToken, agent, question: qa.question, id: `q${n}` });
        const verdict = await judge({ baseUrl, key, model: options.judge, qa, answer });
        results.push({ category: qa.category, correct: verdict });
        if ((n + 1) % 10 === 0)
          console.log(`  ${n + 1}/${questions.length} asked, accuracy so far ${correctShare(results)}`);
      }
    }
  } finally {
    await cli('stop');
    rmSync(dir, { recursive: true, force: true });
  }
  const byCategory = Object.fromEntries(
    [1, 2, 3, 4].map((category) => {
      const of = results.filter((result) => result.category === category);
      return [`category_${category}`, { questions: of.length, accuracy: correctShare(of) }];
    }),
  );
  const metrics = {
    data: path.basename(options.data),
    model: options.model,
    embedder: options.embedder,
    judge: options.judge,
    conversations: samples.length,
    questions: results.length,
    judge_accuracy: correctShare(results),
    ...byCategory,
    method:
      'turns imported into the agent memory; each question sent in a fresh conversation through the host; the judge grades against the gold answer (CORRECT/WRONG)',
  };
  const file = writeResults('memory-locomo-e2e', metrics, {}, true);
  console.log(
    `memory-locomo-e2e: judge accuracy ${metrics.judge_accuracy} over ${results.length} questions → ${file}`,
  );
  return 0;
}

function meshYaml({ agents, baseUrl, options }) {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  return `mesh: { name: locomo-e2e, port: ${port}, egress_port: ${port + 1}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: ${options.model}
  providers:
    openai: { kind: openai-compatible, base_url: "${baseUrl}", api_key: env:OPENAI_API_KEY }
agents:
${agents
  .map(
    (agent) =>
      `  ${agent}: { role: answers questions about past conversations, tools: minimal, soul: "Answer from your memory in a short phrase; search it with memory_search when recall is not enough.", memory: { embedder: ${options.embedder} } }`,
  )
  .join('\n')}
`;
}

/** One memory per turn, in the agent's own scope, as `openlegion memory AGENT import` takes them. */
async function importConversation(cli, dir, agent, sample) {
  const now = Date.now();
  const lines = turnsOf(sample).map((turn, index) => {
    const text = `${turn.speaker} said (${turn.date}): ${turn.text}${turn.caption ? ` [shared a photo: ${turn.caption}]` : ''}`;
    return JSON.stringify({
      id: index + 1,
      scope: `agent:${agent}`,
      category: 'events',
      abstract: text.slice(0, 200),
      overview: `${turn.speaker}, ${turn.date}`,
      content: text,
      tier: 'working',
      temporalType: 'static',
      importance: 0.5,
      confidence: 1,
      accessCount: 0,
      lastAccessedAt: null,
      createdAt: now,
      updatedAt: now,
      source: 'import',
      sourceRef: turn.diaId,
      version: 1,
      supersededBy: null,
    });
  });
  const file = path.join(dir, `${agent}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const imported = await cli('memory', agent, 'import', file);
  if (imported.code !== 0)
    throw new Error(`import into ${agent} failed: ${imported.stderr || imported.stdout}`);
  return lines.length;
}

async function ask({ port, operatorToken, agent, question, id }) {
  const response = await fetch(`http://127.0.0.1:${port}/api/agents/${agent}/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: question, conversation_id: id }),
  });
  const text = await response.text();
  const done = text.split('\n').find((line) => line.startsWith('data: {"type":"done"'));
  return done ? JSON.parse(done.slice('data: '.length)).text : '';
}

async function judge({ baseUrl, key, model, qa, answer }) {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      temperature: 0,
      messages: [
        { role: 'system', content: JUDGE_PROMPT },
        {
          role: 'user',
          content: `Question: ${qa.question}\nGold answer: ${qa.answer}\nGenerated answer: ${answer}`,
        },
      ],
    }),
  });
  if (!response.ok) throw new Error(`the judge answered ${response.status}: ${await response.text()}`);
  const body = await response.json();
  return /\bCORRECT\b/i.test(body.choices?.[0]?.message?.content ?? '');
}

function correctShare(results) {
  if (results.length === 0) return 0;
  return Math.round((results.filter((result) => result.correct).length / results.length) * 1000) / 1000;
}

function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

function parseArgs(args) {
  const options = {
    data: DEFAULT_DATA,
    questions: 50,
    conversations: 1,
    model: 'openai/gpt-4.1-mini',
    embedder: 'openai/text-embedding-3-small',
    judge: 'gpt-4.1-mini',
  };
  for (let i = 0; i < args.length; i += 1) {
    const flag = args[i];
    const value = args[i + 1];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--data') options.data = path.resolve(value);
    else if (flag === '--questions') options.questions = Number(value);
    else if (flag === '--conversations') options.conversations = Number(value);
    else if (flag === '--model') options.model = value;
    else if (flag === '--embedder') options.embedder = value;
    else if (flag === '--judge') options.judge = value;
    else throw new Error(`unknown option ${flag}`);
    i += 1;
  }
  return options;
}
