// mcp: what the agent's MCP tool path adds to a tool call (issue 21). One server-everything
// process (from npm, unchanged) over stdio, started by the agent's McpManager; the same call
// (`echo`) made through
// - the SDK's bare client: the manager's own connected `Client`, `client.callTool` (same process,
//   same pipe), and
// - the agent's tool path: what the loop does with a model's call (arguments JSON parsed, checked
//   with the tool's schema, `AgentTool.run` through the manager's connection, the result mapped and
//   fenced as untrusted),
// interleaved call by call so machine load hits both alike. Target: added p50 ≤ 2 ms, p99 ≤ 10 ms.
//
// REMOTE (hook): remote through the host (`<MESH_URL>/mesh/mcp/NAME`) vs direct, same targets.
// Remote: the agent path vs the bare client over HTTP direct to the server (remoteThroughHost), and
// a tool call through the host's /mesh/mcp route vs direct (mcp-remote.mjs, also `pnpm bench
// mcp-remote` alone); the verdict takes both stdio and through-the-host.
// Needs `pnpm build` first.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, writeResults } from './bench-results.mjs';
import { measureRemoteMcp } from './mcp-remote.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const CALLS = 2_000;
const WARMUP = 200;
const TARGETS = { added_p50_ms_at_most: 2, added_p99_ms_at_most: 10 };

export async function main() {
  if (!existsSync(dist('agent/dist/mcp/index.js'))) {
    console.error('build first: pnpm build');
    return 1;
  }
  const require = createRequire(path.join(ROOT, 'package.json'));
  const everything = path.join(
    path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  );
  const load = loadavg().map((value) => Number(value.toFixed(2)));
  const stdio = await measure(
    {
      name: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: [everything, 'stdio'],
      env: {},
      timeout_ms: 10_000,
    },
    null,
  );
  const remote = await remoteThroughHost(everything);
  const viaHost = await measureRemoteMcp();
  const metrics = {
    method: `${CALLS} echo calls each way after ${WARMUP} warm-up, interleaved, against one server-everything process; agent path = arguments JSON parsed and validated, AgentTool.run through McpManager, result mapped and fenced as the loop does; bare = the same connection's SDK Client.callTool`,
    load_average_before: load,
    load_average_after: loadavg().map((value) => Number(value.toFixed(2))),
    stdio: stdio.summary,
    remote_direct_http: remote.summary,
    remote_through_host: viaHost.metrics,
  };
  const pass =
    stdio.summary.added_p50_ms <= TARGETS.added_p50_ms_at_most &&
    stdio.summary.added_p99_ms <= TARGETS.added_p99_ms_at_most &&
    viaHost.pass;
  const file = writeResults('mcp', metrics, TARGETS, pass);
  console.log(JSON.stringify(metrics, null, 2));
  console.log(`${pass ? 'PASS' : 'FAIL'}: ${file}`);
  return pass ? 0 : 1;
}

/** Latencies of the bare client and the agent's tool path against one server. */
async function measure(server, transportFactory) {
  const { McpManager, createMcpTransport } = await import(dist('agent/dist/mcp/index.js'));
  const { parseArgumentsJson, validateArguments } = await import(dist('agent/dist/loop/tool-arguments.js'));
  const { fenceUntrusted } = await import(dist('protocol/dist/untrusted-text.js'));
  const { pino } = await import(createRequire(dist('agent/package.json')).resolve('pino'));
  const manager = new McpManager({
    servers: [server],
    transport:
      transportFactory ??
      ((s) =>
        createMcpTransport(s, { mesh: { meshUrl: 'http://127.0.0.1:9', token: 'x' }, workspace: ROOT })),
    logger: pino({ level: 'silent' }),
  });
  await manager.start();
  const connection = manager.connection(server.name);
  const client = connection.ready;
  if (!client) throw new Error(`server did not start: ${connection.error}`);
  const tool = manager.tools().find((candidate) => candidate.name === `${server.name}__echo`);
  const signal = new AbortController().signal;
  const bare = async (message) =>
    client.callTool({ name: 'echo', arguments: { message } }, undefined, { timeout: 10_000 });
  const agent = async (message) => {
    const json = parseArgumentsJson(JSON.stringify({ message }));
    const valid = validateArguments(tool, json.value);
    const result = await tool.run(valid.input, { workspace: ROOT, signal });
    return fenceUntrusted(
      `tool ${tool.name}`,
      result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
    );
  };
  const times = { bare: [], agent: [] };
  for (let i = 0; i < WARMUP + CALLS; i += 1) {
    // Alternate which goes first, so neither always follows the other.
    const order = i % 2 === 0 ? ['bare', 'agent'] : ['agent', 'bare'];
    for (const way of order) {
      const started = performance.now();
      await (way === 'bare' ? bare(`m${i}`) : agent(`m${i}`));
      if (i >= WARMUP) times[way].push(performance.now() - started);
    }
  }
  await manager.close();
  return { summary: summarise(times), times };
}

/**
 * HOOK for the remote comparison. Starts server-everything over Streamable HTTP behind a bearer gate
 * (loopback only) and, for now, measures the agent path vs the bare client straight to it. To
 * compare through the host: start a host whose mesh.yaml has `mcp.servers.remote.url` at the gate
 * with the token in the vault, point a transport at `<MESH_URL>/mesh/mcp/remote` with an agent
 * token, and return its latencies as `throughHost` (added p50 ≤ 2 ms, p99 ≤ 10 ms over direct).
 */
async function remoteThroughHost(everything) {
  const { StreamableHTTPClientTransport } = await import(
    createRequire(dist('agent/package.json')).resolve('@modelcontextprotocol/sdk/client/streamableHttp.js')
  );
  const { findFreePort } = await import(dist('infra/dist/http/index.js'));
  const port = await findFreePort('127.0.0.1');
  const token = 'bench-token';
  const gate = spawn(
    process.execPath,
    [
      path.join(ROOT, 'packages/agent/test/fixtures/mcp/remote-everything.mjs'),
      everything,
      String(port),
      token,
    ],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise((resolve, reject) => {
    gate.stdout.on('data', (chunk) => chunk.toString().includes('ready') && resolve());
    gate.once('exit', (code) => reject(new Error(`the remote server exited with ${code}`)));
  });
  try {
    const server = { name: 'remote', transport: 'streamable-http', timeout_ms: 10_000 };
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const direct = () => ({
      transport: new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    });
    const { summary } = await measure(server, direct);
    return { summary, throughHost: undefined };
  } finally {
    gate.kill();
  }
}

function summarise({ bare, agent }) {
  const round = (value) => Number(value.toFixed(3));
  const p = (values, q) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
  const result = {
    calls: bare.length,
    bare_p50_ms: round(median(bare)),
    bare_p99_ms: round(p(bare, 0.99)),
    agent_p50_ms: round(median(agent)),
    agent_p99_ms: round(p(agent, 0.99)),
  };
  return {
    ...result,
    added_p50_ms: round(result.agent_p50_ms - result.bare_p50_ms),
    added_p99_ms: round(result.agent_p99_ms - result.bare_p99_ms),
  };
}
