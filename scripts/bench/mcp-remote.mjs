// mcp-remote: what the host adds to a remote MCP tool call, measured side by side in one run
// against the same server process: the reference server `@modelcontextprotocol/server-everything`
// (from npm, a dev dependency of the host) over Streamable HTTP on loopback, called with the
// official SDK client (`@modelcontextprotocol/sdk`) directly, and through the host's
// `/mesh/mcp/NAME` as an agent (agent auth, permission, the server's bearer token from the vault in
// place of the agent's, a trace hop, answers streamed back). Sequential `tools/call echo` calls,
// interleaved across the two paths. Pass: the host adds at most 2 ms at p50 and 10 ms at p99.
// `measureRemoteMcp()` is exported for `pnpm bench mcp` to include; `pnpm bench mcp-remote` runs it
// alone. BENCH_NO_AUTH=1 runs the server without a credential (nothing to scrub). Needs `pnpm build`
// first.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResults } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const WARM_UP = 50;
const ROUNDS = 1_000;
const CPU_BLOCKS = 10;
const TARGETS = { added_p50_ms: 2, added_p99_ms: 10 };
const TOKEN = 'bench-bearer-token';

export async function main() {
  const { metrics, pass } = await measureRemoteMcp();
  console.log(JSON.stringify(metrics, null, 2));
  const file = writeResults('mcp-remote', metrics, TARGETS, pass);
  console.log(`${pass ? 'PASS' : 'FAIL'}: ${file}`);
  return pass ? 0 : 1;
}

/** The measurement alone: `{ metrics, targets, pass }`. */
export async function measureRemoteMcp() {
  if (!existsSync(dist('host/dist/index.js'))) throw new Error('build first: pnpm build');
  const loadAtStart = loadavg()[0];
  const fromHost = createRequire(dist('host/package.json'));
  const server = await startEverything(fromHost);
  const host = await startHost(`${server.origin}/mcp`);
  const { Client } = await import(fromHost.resolve('@modelcontextprotocol/sdk/client/index.js'));
  const { StreamableHTTPClientTransport } = await import(
    fromHost.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js')
  );
  const connect = async (url, headers) => {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  };
  try {
    const paths = {
      direct: await connect(`${server.origin}/mcp`, {}),
      host: await connect(`${host.url}/mesh/mcp/everything`, { authorization: host.auth }),
    };
    const call = async (client) => {
      const started = performance.now();
      const result = await client.callTool({ name: 'echo', arguments: { message: 'bench' } });
      if (result.content?.[0]?.text !== 'Echo: bench') throw new Error('echo answered wrongly');
      return performance.now() - started;
    };
    for (let round = 0; round < WARM_UP; round++)
      for (const client of Object.values(paths)) await call(client);
    const latency = { direct: [], host: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, client] of Object.entries(paths)) latency[name].push(await call(client));
    // CPU time per call of this process (the SDK client and the host; the server is another
    // process), which a busy machine disturbs less than wall time: what the host adds per call.
    const cpu = { direct: 0, host: 0 };
    for (let block = 0; block < CPU_BLOCKS; block++)
      for (const [name, client] of Object.entries(paths)) {
        const started = process.cpuUsage();
        for (let round = 0; round < ROUNDS / CPU_BLOCKS; round++) await call(client);
        const used = process.cpuUsage(started);
        cpu[name] += (used.user + used.system) / 1000 / ROUNDS;
      }
    for (const client of Object.values(paths)) await client.close();
    const p = (values, q) =>
      [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
    const r2 = (value) => Math.round(value * 100) / 100;
    const r3 = (value) => Math.round(value * 1000) / 1000;
    const metrics = {
      method: `server-everything ${server.version} over Streamable HTTP on loopback; the SDK client calls tools/call echo ${ROUNDS} times per path, sequentially, interleaved (after ${WARM_UP} warm-up rounds); host = /mesh/mcp/everything as an agent, the bearer token from the secrets in place of the agent's; added = host minus direct at the same percentile; CPU per call of the bench process (client and host; the server runs apart) over ${ROUNDS} more calls per path in ${CPU_BLOCKS} interleaved blocks`,
      load_average_1m: r2((loadAtStart + loadavg()[0]) / 2),
      direct_p50_ms: r2(p(latency.direct, 0.5)),
      direct_p99_ms: r2(p(latency.direct, 0.99)),
      host_p50_ms: r2(p(latency.host, 0.5)),
      host_p99_ms: r2(p(latency.host, 0.99)),
      added_p50_ms: r2(p(latency.host, 0.5) - p(latency.direct, 0.5)),
      added_p99_ms: r2(p(latency.host, 0.99) - p(latency.direct, 0.99)),
      cpu_direct_ms_per_call: r3(cpu.direct),
      cpu_added_host_ms_per_call: r3(cpu.host - cpu.direct),
    };
    const pass = metrics.added_p50_ms <= TARGETS.added_p50_ms && metrics.added_p99_ms <= TARGETS.added_p99_ms;
    return { metrics, targets: TARGETS, pass };
  } finally {
    await host.stop();
    server.stop();
  }
}

async function startEverything(fromHost) {
  const packageFile = fromHost.resolve('@modelcontextprotocol/server-everything/package.json');
  const { version } = fromHost(packageFile);
  const { findFreePort } = await import(dist('infra/dist/http/index.js'));
  const port = await findFreePort('127.0.0.1');
  const child = spawn(
    process.execPath,
    [path.join(path.dirname(packageFile), 'dist/index.js'), 'streamableHttp'],
    {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await new Promise((resolve, reject) => {
    let output = '';
    const read = (chunk) => {
      output += chunk;
      if (/listening on port/i.test(output)) resolve();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${output}`)));
  });
  // Its per-request log lines are read and dropped, so a full pipe never holds it up.
  child.stdout.resume();
  return { origin: `http://127.0.0.1:${port}`, version, stop: () => child.kill('SIGKILL') };
}

async function startHost(serverUrl) {
  const host = await import(dist('host/dist/index.js'));
  const { meshConfigSchema } = await import(dist('protocol/dist/index.js'));
  const { migrate, openDatabase } = await import(dist('infra/dist/sqlite/index.js'));
  const { systemClock } = await import(dist('infra/dist/clock/index.js'));
  const { createLogger } = await import(dist('infra/dist/log/index.js'));
  const dir = mkdtempSync(path.join(tmpdir(), 'ol-bench-mcp-'));
  const config = meshConfigSchema.parse({
    llm: { providers: { openai: {} } },
    mcp: {
      servers: {
        everything: {
          url: serverUrl,
          ...(process.env.BENCH_NO_AUTH ? {} : { auth: { bearer: 'vault:MCP_TOKEN' } }),
        },
      },
    },
    agents: { a: { permissions: { mcp: ['everything'] } } },
  });
  const db = openDatabase(path.join(dir, 'mesh.db'));
  const controller = new AbortController();
  const logger = createLogger({ level: 'silent' });
  const tokens = new host.TokenRegistry();
  const token = tokens.mint('a');
  const context = {
    config,
    dataDir: dir,
    resolvePath: (relative) => path.resolve(dir, relative),
    db,
    clock: systemClock,
    logger,
    secrets: { lookup: ({ name }) => (name === 'MCP_TOKEN' ? TOKEN : undefined), howToSet: () => '' },
    signal: controller.signal,
    warn: () => {},
    events: new host.EventBus(logger),
    tokens,
    notices: new host.OperatorNotices(logger),
  };
  const features = [host.tracesFeature(), host.mcpFeature()];
  migrate(
    db,
    features.filter((f) => f.migrations).map((f) => ({ feature: f.name, steps: f.migrations })),
  );
  const built = host.buildFeatures(features, context, new Map());
  const app = await host.buildHostApp({
    logger,
    auth: { tokens, operatorToken: 'bench-op' },
    features: built,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: `http://127.0.0.1:${app.server.address().port}`,
    auth: `Bearer ${token}`,
    async stop() {
      controller.abort();
      await app.close();
      for (const feature of [...built].reverse()) await feature.stop?.();
      db.close();
    },
  };
}
