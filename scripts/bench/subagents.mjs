// subagents: how fast an in-container subagent starts (issue 23), against the fastest honest
// alternative, a plain turn of the same agent. The real agent (packages/agent/dist) runs in this
// process on loopback with testkit's mesh host and OpenAI-compatible endpoint (answers at once):
// - plain: the time from POST /chat to the turn's first LLM request arriving;
// - spawn: the time from the lead's LLM request that answers with spawn_subagent to the child's
//   first LLM request arriving (the answer, the tool call, the child loop's set-up, its first call).
// Targets: spawn p50 ≤ 300 ms and ≤ 2× plain p50. Times are the endpoint's arrival stamps (ms).
// Needs `pnpm build` first. `pnpm bench subagents fleet-spawn` runs the fleet-level case instead
// (bench-fleet-spawn.mjs: a temporary agent container to ready against a bare `docker run`), and
// `pnpm bench subagents squad` the tokens squad memory takes of a prompt (bench-squad-injection.mjs).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const ROUNDS = 30;
const TOKEN = 'bench-subagents';
const TARGETS = { spawn_p50_ms_at_most: 300, spawn_over_plain_p50_at_most: 2 };

export async function main(args = []) {
  if (args[0] === 'fleet-spawn') return (await import('./bench-fleet-spawn.mjs')).fleetSpawn();
  if (args[0] === 'squad') return (await import('./bench-squad-injection.mjs')).squadInjection(args.slice(1));
  if (!existsSync(dist('agent/dist/index.js'))) {
    console.error('build first: pnpm build');
    return 1;
  }
  const { startAgent, parseAgentEnv } = await import(dist('agent/dist/index.js'));
  const { startFakeLlm, startFakeMeshHost } = await import(dist('testkit/dist/index.js'));
  const { agentSelfSchema } = await import(dist('protocol/dist/index.js'));
  const { pino } = await import(path.join(ROOT, 'packages/agent/node_modules/pino/pino.js'));
  const self = agentSelfSchema.parse({
    agent: 'lead',
    mesh: 'bench',
    role: 'leads',
    model: 'scripted/gpt-test',
    soul: '',
    tools: 'full',
  });
  const llm = await startFakeLlm({
    script: {
      rules: [
        { match: { tool_result: 'collect its answer' }, reply: { text: 'spawned' } },
        {
          match: { last_message_regex: '^fan \\d+$' },
          reply: { tool_calls: [{ name: 'spawn_subagent', arguments: { task: 'child task: say done' } }] },
        },
      ],
      default: { text: 'done' },
    },
  });
  const host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-subagents-'));
  const agent = await startAgent({
    env: parseAgentEnv({
      AGENT_ID: 'lead',
      MESH_URL: host.url,
      MESH_TOKEN: TOKEN,
      AGENT_HOST: '127.0.0.1',
      AGENT_PORT: '0',
      AGENT_DATA_DIR: dataDir,
    }),
    logger: pino({ level: 'silent' }),
    version: 'bench',
  });
  const chat = async (message) => {
    const response = await fetch(`${agent.url}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message, conversation_id: message }),
    });
    await response.text();
  };
  const lastText = (request) => {
    const content = request.body?.messages?.at(-1)?.content;
    return typeof content === 'string' ? content : '';
  };
  const arrival = async (predicate) => {
    for (let tries = 0; tries < 1_000; tries += 1) {
      const found = llm.requests.find(predicate);
      if (found) return found.at;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error('the expected LLM request never came');
  };
  const plain = [];
  const spawn = [];
  try {
    await chat('warm 0'); // the first turn builds the runtime
    for (let round = 1; round <= ROUNDS; round += 1) {
      llm.reset();
      const sent = Date.now();
      await chat(`plain ${round}`);
      plain.push((await arrival((request) => lastText(request) === `plain ${round}`)) - sent);

      llm.reset();
      await chat(`fan ${round}`);
      const lead = await arrival((request) => lastText(request) === `fan ${round}`);
      const child = await arrival((request) => lastText(request).startsWith('child task'));
      spawn.push(child - lead);
    }
  } finally {
    await agent.close();
    await host.close();
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const metrics = {
    rounds: ROUNDS,
    load_average_1m: Math.round(loadavg()[0] * 100) / 100,
    plain_turn_start_p50_ms: median(plain),
    spawn_to_child_first_call_p50_ms: median(spawn),
    spawn_over_plain_p50: Math.round((median(spawn) / Math.max(1, median(plain))) * 100) / 100,
    method:
      'real agent in-process on loopback with testkit mesh host and LLM; plain: POST /chat to first LLM request; spawn: the lead request answered with spawn_subagent to the child first LLM request (arrival stamps at the LLM endpoint, ms)',
  };
  const pass =
    metrics.spawn_to_child_first_call_p50_ms <= TARGETS.spawn_p50_ms_at_most &&
    metrics.spawn_over_plain_p50 <= TARGETS.spawn_over_plain_p50_at_most;
  const file = writeResults('subagents', metrics, TARGETS, pass);
  console.log(
    `subagents: spawn to the child's first LLM call p50 ${metrics.spawn_to_child_first_call_p50_ms} ms ` +
      `(target ≤ ${TARGETS.spawn_p50_ms_at_most}); a plain turn's start p50 ${metrics.plain_turn_start_p50_ms} ms; ` +
      `ratio ${metrics.spawn_over_plain_p50} (target ≤ ${TARGETS.spawn_over_plain_p50_at_most}) → ${file}`,
  );
  return pass ? 0 : 1;
}
