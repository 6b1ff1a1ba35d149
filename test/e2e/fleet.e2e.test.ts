import { readdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import path from 'node:path';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  containerOutput,
  docker,
  dockerAnswers,
  inspectContainer,
  meshLeftovers,
  removeMesh,
} from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { REPO_ROOT, runCli } from './support/run-cli.js';
import { startSiteContainer } from './support/site-container.js';
import { openTmux } from './support/tmux.js';
import { waitUntil } from './support/wait-until.js';

/** The provider key the host holds; it must reach the provider and nothing else. */
const PROVIDER_KEY = 'sk-e2e-provider-key-4f1d2c9a';
const REPLY = 'Hello from the scripted provider, streamed word by word to the terminal.';

/** The throwaway "outside site": a container of ours on its own network, the one CIDR alpha may reach. */
const SITE_SUBNET = '10.213.77.0/24';
const SITE_ADDRESS = '10.213.77.10';
const startSite = (meshName: string, handler: string) =>
  startSiteContainer({
    name: `ol-e2e-site-${meshName}`,
    subnet: SITE_SUBNET,
    address: SITE_ADDRESS,
    handler,
  });

const SLOW_REPLY = 'one two three four five six seven eight';
const script = {
  rules: [
    { match: { last_message: 'slow job' }, reply: { text: SLOW_REPLY, chunk_delay_ms: 400 } },
    // 100 ms between words: far apart enough that a busy machine does not merge them into one write.
    { match: { last_message: 'hello' }, reply: { text: REPLY, chunk_delay_ms: 100 } },
    { match: { last_message: 'remember' }, reply: { text: 'I remember our talk.' } },
    // A file task: write, read back, answer. Rules see the tool results of the running turn.
    { match: { tool_result: 'high tide 06:12' }, reply: { text: 'Saved and checked: high tide 06:12.' } },
    {
      match: { tool_result: 'created notes/tides.md' },
      reply: { tool_calls: [{ name: 'read_file', arguments: { path: 'notes/tides.md' } }] },
    },
    {
      match: { last_message: 'make tide notes' },
      reply: {
        tool_calls: [
          { name: 'write_file', arguments: { path: 'notes/tides.md', content: 'high tide 06:12\n' } },
        ],
      },
    },
    // The browser: open the site, snapshot it, answer from the snapshot.
    { match: { tool_result: 'link "Next day"' }, reply: { text: 'The tide site links to the next day.' } },
    {
      match: { tool_result: 'at "Tide table"' },
      reply: { tool_calls: [{ name: 'browser_snapshot', arguments: {} }] },
    },
    {
      match: { last_message: 'browse the tide site' },
      reply: {
        tool_calls: [{ name: 'browser_navigate', arguments: { url: `http://${SITE_ADDRESS}:8080/` } }],
      },
    },
    // A task steered mid-way: the steer arrives after the tool round, as the turn's newest message.
    { match: { last_message: 'prefer the short form' }, reply: { text: 'Short form, as steered.' } },
    { match: { tool_result: 'chore finished' }, reply: { text: 'Chore done the long way.' } },
    {
      match: { last_message: 'long chore' },
      reply: {
        tool_calls: [{ name: 'run_command', arguments: { command: 'sleep 3 && echo chore finished' } }],
      },
    },
  ],
};

/** Retry `attempt` until it answers (a container's server takes a moment to listen). */
async function waitForAnswer(attempt: () => Promise<string>): Promise<string> {
  let last = '';
  for (let tries = 0; tries < 20; tries += 1) {
    last = await attempt();
    if (last.startsWith('200')) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return last;
}

const requireDocker = process.env.OPENLEGION_REQUIRE_DOCKER === '1';
const haveDocker = await dockerAnswers();
if (requireDocker && !haveDocker) throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');

type RuntimeKind = 'docker' | 'process';
const runtimes: RuntimeKind[] = haveDocker ? ['docker', 'process'] : ['process'];

/** The text of every message the agent sent the provider in one request. */
function messageTexts(request: FakeLlm['requests'][number]): string[] {
  const body = request.body as { messages: Array<{ content: string }> };
  return body.messages.map((message) => message.content);
}

/** Pids of the process runtime's agents of `mesh`, from its pid files. */
/** One line of `openlegion memory AGENT import`: a whole item, its content the abstract unless given. */
function memoryLine(fields: {
  id: number;
  category: string;
  abstract: string;
  overview?: string;
  importance: number;
}) {
  return JSON.stringify({
    scope: 'global',
    overview: fields.abstract,
    content: fields.abstract,
    tier: 'working',
    temporalType: 'static',
    confidence: 0.9,
    accessCount: 0,
    lastAccessedAt: null,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    source: 'import',
    sourceRef: null,
    version: 1,
    supersededBy: null,
    ...fields,
  });
}

async function processAgentPids(mesh: E2eMesh): Promise<number[]> {
  const runDir = path.join(mesh.dataDir, 'run');
  const files = await readdir(runDir).catch(() => []);
  const records = await Promise.all(
    files.map(async (file) => JSON.parse(await readFile(path.join(runDir, file), 'utf8'))),
  );
  return records.map((record: { pid: number }) => record.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each(runtimes)('openlegion with the %s runtime', (runtime) => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: PROVIDER_KEY };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: `e2e-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agentFields: {
        // Room for Chromium in the browser test: a page alone takes a few hundred MiB and many threads.
        alpha: `permissions: { egress: ["${SITE_SUBNET}", localhost], egress_ports: [80, 8080] }, resources: { memory: 1g, pids: 512 }`,
      },
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
    expect(start.stdout).toMatch(/✓ alpha ready in/);
    expect(start.stdout).toMatch(/✓ beta ready in/);
    expect(start.stdout).toContain(`mesh ${mesh.name} ready: 2 agents`);
  });

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('streams the scripted reply to stdout as it arrives', async () => {
    const sent = await cli('send', 'alpha', 'hello');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe(`${REPLY}\n`);
    // Streamed: the words arrive over time in several writes, not in one block at the end.
    expect(sent.chunks.length).toBeGreaterThan(3);
    const first = sent.chunks[0]?.at ?? 0;
    const last = sent.chunks.at(-1)?.at ?? 0;
    expect(last - first).toBeGreaterThan(200);
  });

  it('gives the provider the key the host holds, and the bare model name', async () => {
    const calls = llm.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
      expect((call.body as { model: string }).model).toBe('gpt-test');
    }
  });

  it('puts the agent role and soul in the system prompt', () => {
    const call = llm.requests.find((request) => request.path === '/v1/chat/completions');
    expect(call && messageTexts(call)[0]).toMatch(/e2e agent alpha[\s\S]*Terse\./);
  });

  it('chats in the REPL, switching agents, until /quit', async () => {
    const chat = await runCli(['chat', 'alpha', '--config', mesh.file], {
      env,
      input: 'hello\n/agent beta\nwho is there\n/quit\n',
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain('chatting with alpha');
    expect(chat.stdout).toContain(REPLY);
    expect(chat.stdout).toContain('echo: who is there');
    const beta = llm.requests.filter((request) => messageTexts(request)[0]?.includes('e2e agent beta'));
    expect(beta.map((request) => messageTexts(request).at(-1))).toEqual(['who is there']);
  });

  it('addresses agents with @ and /use, lists the queue, and names the choices on bad input', async () => {
    const chat = await runCli(['chat', '--config', mesh.file], {
      env,
      input: '@beta hello\n/use beta\n/queue\n/nonsense\n@nobody hi\n/cron list\n/quit\n',
    });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain(REPLY);
    // /use switched the prompt to beta; /queue shows beta's finished item from @beta.
    expect(chat.stdout).toMatch(/#\d+ done\s+followup\s+cli\s+hello/);
    expect(chat.stderr).toContain('unknown command /nonsense; commands: /help, /quit, /use');
    expect(chat.stderr).toContain('no agent "nobody"; agents: alpha, beta');
    expect(chat.stdout).toContain('no cron jobs');
  });

  it('works in a real terminal: @ and Tab-completed /use, /broadcast, /interrupt and /steer mid-turn, /queue, /costs, Ctrl-C twice leaves', async () => {
    const bin = path.join(REPO_ROOT, 'packages/cli/bundle/bin.mjs');
    const pane = await openTmux(
      `ol-e2e-${runtime}-${process.pid}`,
      [process.execPath, bin, 'chat', 'alpha', '--config', mesh.file],
      env,
    );
    const prompt = (agent: string) => (screen: string) => screen.trimEnd().endsWith(`${agent}>`);
    try {
      await pane.waitFor((screen) => screen.includes('chatting with alpha'));
      await pane.type('@beta hello');
      await pane.waitFor((screen) => screen.includes(REPLY) && prompt('alpha')(screen));
      await pane.type('/us', false);
      await pane.key('Tab');
      // Wait for the completion before typing on: readline takes a Tab that arrives in one read
      // with the keys after it for pasted text, and inserts it instead of completing.
      await pane.waitFor((screen) => screen.trimEnd().endsWith('alpha> /use'));
      await pane.type(' beta');
      await pane.waitFor(prompt('beta'));
      await pane.type('/broadcast who is there');
      await pane.waitFor(
        (screen) => screen.split('echo: who is there').length === 3 && prompt('beta')(screen),
      );
      expect(await pane.screen()).toMatch(/── alpha ──[\s\S]*── beta ──/);

      // /interrupt typed while the turn streams acts at once: the rest of the reply never comes.
      await pane.type('slow job');
      await pane.waitFor((screen) => screen.includes('one two'));
      await pane.type('/interrupt');
      await pane.waitFor((screen) => screen.includes('beta: interrupted') && prompt('beta')(screen));
      await new Promise((resolve) => setTimeout(resolve, SLOW_REPLY.split(' ').length * 400));
      expect(await pane.screen()).not.toContain('seven eight');
      await pane.type('/queue');
      await pane.waitFor((screen) => /#\d+ \w+\s+followup\s+cli\s+slow job/.test(screen));

      // /steer while a turn streams goes at once: the agent takes it after the answer it is
      // streaming and answers it in the same turn, so the REPL shows both answers in that order.
      await pane.type('slow job');
      await pane.waitFor((screen) => screen.split('one two').length === 3);
      await pane.type('/steer beta keep it short');
      const steered = await pane.waitFor(
        (screen) => screen.includes('echo: keep it short') && prompt('beta')(screen),
      );
      expect(steered.lastIndexOf('seven eight')).toBeLessThan(steered.indexOf('echo: keep it short'));
      await pane.type('/costs');
      await pane.waitFor((screen) => /this month:\n\s+(alpha|beta)\s+upstream\/gpt-test/.test(screen));

      await pane.key('C-c');
      await pane.waitFor((screen) => screen.includes('press Ctrl-C again to leave'));
      await pane.key('C-c');
      await waitUntil(() => pane.exited(), 'the REPL to leave after a second Ctrl-C');
    } finally {
      await pane.close();
    }
  });

  it('follows one trace id from the CLI through the lane into the agent and its LLM call; the blackboard from the CLI', async () => {
    expect((await cli('send', 'alpha', 'hello')).code).toBe(0);
    const listed = await cli('traces', '--json');
    const traces = JSON.parse(listed.stdout) as Array<{ trace_id: string; agents: string[] }>;
    const latest = traces.find((trace) => trace.agents.includes('alpha'));
    expect(latest, listed.stdout).toBeDefined();
    const hops = JSON.parse((await cli('traces', latest?.trace_id ?? '', '--json')).stdout) as Array<{
      hop: string;
      agent: string;
    }>;
    expect(hops.map((hop) => hop.hop)).toEqual(
      expect.arrayContaining(['lane.queued', 'lane.running', 'http POST /v1/chat/completions', 'lane.done']),
    );
    expect(hops.find((hop) => hop.hop.startsWith('http POST /v1'))?.agent).toBe('alpha');
    const costs = JSON.parse((await cli('costs', '--agent', 'alpha', '--json')).stdout) as {
      today: Array<{ agent: string; model: string; calls: number; prompt_tokens: number }>;
    };
    expect(costs.today[0]).toMatchObject({ agent: 'alpha', model: 'upstream/gpt-test' });
    expect(costs.today[0]?.calls).toBeGreaterThan(0);
    expect(costs.today[0]?.prompt_tokens).toBeGreaterThan(0);

    expect((await cli('blackboard', 'set', 'plan/today', '{"focus":"tides"}')).stdout).toBe(
      'plan/today: v1\n',
    );
    expect((await cli('blackboard', 'get', 'plan/today')).stdout).toContain('"focus": "tides"');
    expect((await cli('blackboard', 'list', 'plan/')).stdout).toMatch(/^plan\/today {2}v1 {2}operator/);
    expect((await cli('blackboard', 'rm', 'plan/today')).stdout).toBe('plan/today: deleted\n');
    const gone = await cli('blackboard', 'get', 'plan/today');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no blackboard entry "plan/today"');
  });

  it("manages an agent's memory from the CLI: import, search, stats, export, doctor, bad lines", async () => {
    const item = (id: number, abstract: string) =>
      memoryLine({ id, category: 'preferences', abstract, importance: 0.7 });
    const file = path.join(mesh.dir, 'memory.jsonl');
    await writeFile(
      file,
      `${item(1, 'The user drinks oat milk flat whites')}\n${item(2, 'The user runs every Tuesday')}\n`,
    );
    const imported = await cli('memory', 'alpha', 'import', file);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('"imported": 2');
    const search = await cli('memory', 'alpha', 'search', 'oat', 'milk', '--flat');
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout.split('\n')[0]).toContain('oat milk flat whites');
    const exported = await cli('memory', 'alpha', 'export');
    expect(exported.stdout.trim().split('\n')).toHaveLength(2);
    const doctor = await cli('memory', 'alpha', 'doctor');
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    await writeFile(file, `${item(3, 'fine')}\n{not json\n`);
    const bad = await cli('memory', 'alpha', 'import', file);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/line 2/);
    const after = await cli('memory', 'alpha', 'export');
    expect(after.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('recalls an imported memory into the next prompt without a tool call, fenced as shared', async () => {
    // After the import above: alpha holds "The user drinks oat milk flat whites" in scope global.
    const question = 'Do I take oat milk in my flat white?';
    const sent = await cli('send', 'alpha', question);
    expect(sent.code, sent.stderr).toBe(0);
    const call = llm.requests
      .filter((request) => request.path === '/v1/chat/completions')
      .filter((request) => messageTexts(request)[0]?.includes('e2e agent alpha'))
      .at(-1);
    const last = (call && messageTexts(call).at(-1)) ?? '';
    expect(last).toMatch(
      /<untrusted source="memory saved from conversations or by other agents">\n- \[memory \d+ · preferences · global · saved 2023-11-14 · imported\] The user drinks oat milk flat whites/,
    );
    expect(last.endsWith(`</recalled_memories>\n\n${question}`)).toBe(true);
    expect(sent.stdout).not.toContain('memory_search');
  });

  it('searches a memory past the in-memory scan threshold inside the agent (its WebAssembly kernel)', async () => {
    const topics = ['gardening', 'sailing', 'chess', 'baking', 'astronomy', 'cycling', 'pottery', 'jazz'];
    const lines = Array.from({ length: 5_000 }, (_, i) => {
      const text = `Note ${i} on ${topics[i % topics.length]} from week ${Math.floor(i / 7)}`;
      return memoryLine({ id: i + 1, category: 'events', abstract: text, overview: '', importance: 0.5 });
    });
    const file = path.join(mesh.dir, 'large-memory.jsonl');
    await writeFile(file, `${lines.join('\n')}\n`);
    const imported = await cli('memory', 'beta', 'import', file);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('"imported": 5000');
    const search = await cli('memory', 'beta', 'search', 'astronomy', '4284', '--flat');
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout.split('\n')[0]).toContain('Note 4284 on astronomy from week 612');
    const stats = JSON.parse((await cli('memory', 'beta', 'stats')).stdout) as {
      items: number;
      vectorSearch: { method: string; copiedVectors: number };
    };
    expect(stats.items).toBeGreaterThanOrEqual(5_000);
    expect(stats.vectorSearch.method).toBe('int8-scan');
    expect(stats.vectorSearch.copiedVectors).toBe(stats.items);
  });

  it('keeps the provider key and every token out of the host log and agent output', async () => {
    const hostLog = await readFile(path.join(mesh.dataDir, 'host.log'), 'utf8');
    const operatorToken = (await readFile(path.join(mesh.dataDir, 'operator-token'), 'utf8')).trim();
    expect(hostLog).toContain('llm call');
    expect(hostLog).not.toContain(PROVIDER_KEY);
    expect(hostLog).not.toContain(operatorToken);
    if (runtime === 'docker') {
      for (const agent of ['alpha', 'beta']) {
        const name = `openlegion-${mesh.name}-${agent}`;
        const token = (await inspectContainer(name)).Config.Env.find((entry) =>
          entry.startsWith('MESH_TOKEN='),
        );
        const agentToken = token?.slice('MESH_TOKEN='.length) ?? '';
        expect(agentToken.length).toBeGreaterThan(20);
        expect(hostLog).not.toContain(agentToken);
        const output = await containerOutput(name);
        expect(output).not.toContain(agentToken);
        expect(output).not.toContain(PROVIDER_KEY);
      }
    }
  });

  it('names the agents when asked for one that does not exist', async () => {
    const sent = await cli('send', 'gamma', 'hello');
    expect(sent.code).not.toBe(0);
    expect(sent.stderr).toContain('no agent "gamma"');
    expect(sent.stderr).toContain('alpha, beta');
  });

  it('reports both agents ready in status --json', async () => {
    const status = await cli('status', '--json');
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as {
      runtime: string;
      network?: string;
      agents: Array<{ name: string; state: string }>;
    };
    expect(parsed.runtime).toBe(runtime);
    // The e2e host runs as root here, so the docker runtime locks its network.
    expect(parsed.network).toBe(runtime === 'docker' ? 'locked' : 'none');
    expect(parsed.agents.map((agent) => [agent.name, agent.state])).toEqual([
      ['alpha', 'ready'],
      ['beta', 'ready'],
    ]);
  });

  it('refuses host and agent requests without a valid token', async () => {
    const hostUrl = `http://127.0.0.1:${mesh.port}`;
    expect((await fetch(`${hostUrl}/api/status`)).status).toBe(401);
    const wrong = { authorization: 'Bearer not-the-token' };
    expect((await fetch(`${hostUrl}/api/status`, { headers: wrong })).status).toBe(401);
    expect((await fetch(`${hostUrl}/v1/models`, { headers: wrong })).status).toBe(401);
    const status = JSON.parse((await cli('status', '--json')).stdout) as { agents: Array<{ url: string }> };
    const agentUrl = status.agents[0]?.url;
    const chat = await fetch(`${agentUrl}/chat`, {
      method: 'POST',
      headers: { ...wrong, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
    expect(chat.status).toBe(401);
    expect(((await chat.json()) as { error: { code: string } }).error.code).toBe('AUTH_INVALID');
  });

  // Only containers have these properties; the process runtime registers no such test.
  if (runtime === 'docker') {
    it('runs each agent hardened, on the internal network, with no key', async () => {
      const internal = JSON.parse(await docker('network', 'inspect', `openlegion-${mesh.name}`)) as Array<{
        Internal: boolean;
      }>;
      expect(internal[0]?.Internal).toBe(true);
      for (const agent of ['alpha', 'beta']) {
        const info = await inspectContainer(`openlegion-${mesh.name}-${agent}`);
        expect(info.Config.User).toBe('1000');
        expect(info.HostConfig.ReadonlyRootfs).toBe(true);
        expect(info.HostConfig.CapDrop).toEqual(['ALL']);
        expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges');
        expect(info.HostConfig.Init).toBe(true);
        expect(info.HostConfig.Memory).toBe((agent === 'alpha' ? 1024 : 256) * 1024 * 1024);
        expect(Object.keys(info.NetworkSettings.Networks)).toEqual([`openlegion-${mesh.name}`]);
        const env = info.Config.Env.join('\n');
        expect(env).not.toContain(PROVIDER_KEY);
        expect(env).not.toMatch(/API_KEY|E2E_PROVIDER/);
        const names = info.Config.Env.map((entry) => entry.split('=')[0]);
        expect(names).toEqual(expect.arrayContaining(['AGENT_ID', 'MESH_URL', 'MESH_TOKEN']));
      }
    });

    it('locks the network: a 0.0.0.0 listener here is out of reach; egress only through the proxy, as allowed', async () => {
      const listener = createServer((socket) => socket.end('hi'));
      await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
      const port = (listener.address() as AddressInfo).port;
      const container = `openlegion-${mesh.name}-alpha`;
      const env = Object.fromEntries(
        (await inspectContainer(container)).Config.Env.map((entry) => [
          entry.split('=')[0],
          entry.slice(entry.indexOf('=') + 1),
        ]),
      );
      const gateway = new URL(env.MESH_URL ?? '').hostname;
      expect(env.HTTP_PROXY).toMatch(
        new RegExp(`^http://alpha:[^@]+@${gateway.replace(/\./g, '\\.')}:${mesh.egressPort}$`),
      );
      const dial = `const s = require('net').connect(${port}, '${gateway}'); s.setTimeout(2500);
        s.on('connect', () => { console.log('reached'); process.exit(0); });
        s.on('timeout', () => { console.log('blocked: timeout'); process.exit(0); });
        s.on('error', (e) => { console.log('blocked: ' + e.code); process.exit(0); });`;
      try {
        expect((await docker('exec', container, 'node', '-e', dial)).trim()).toMatch(/^blocked: /);
      } finally {
        listener.close();
      }
      // A plain HTTP request through the proxy in HTTP_PROXY, with the credentials in it.
      const viaProxy = (url: string) =>
        `const proxy = new URL(process.env.HTTP_PROXY);
         const auth = Buffer.from(decodeURIComponent(proxy.username) + ':' + decodeURIComponent(proxy.password)).toString('base64');
         require('http').get({ host: proxy.hostname, port: proxy.port, path: '${url}', headers: { 'proxy-authorization': 'Basic ' + auth } }, (res) => {
           let body = ''; res.on('data', (c) => (body += c)); res.on('end', () => console.log(res.statusCode + ' ' + body.trim()));
         }).on('error', (e) => console.log('error ' + e.message));`;
      const stopSite = await startSite(mesh.name, "(q, r) => r.end('site says hi')");
      try {
        const allowed = await waitForAnswer(() =>
          docker('exec', container, 'node', '-e', viaProxy(`http://${SITE_ADDRESS}:8080/`)),
        );
        expect(allowed.trim()).toBe('200 site says hi');
        expect(
          (await docker('exec', container, 'node', '-e', viaProxy('http://denied.example/'))).trim(),
        ).toBe(
          "403 egress refused: denied.example is not in agents.alpha.permissions.egress; to allow it add '@web' (any public host) or 'denied.example' (this host only) to that list in mesh.yaml",
        );
        expect(
          (await docker('exec', container, 'node', '-e', viaProxy('http://localhost:8080/'))).trim(),
        ).toBe('403 egress refused: localhost resolves to 127.0.0.1, a loopback address');
        expect(
          (await docker('exec', container, 'node', '-e', viaProxy(`http://${SITE_ADDRESS}:22/`))).trim(),
        ).toBe(
          '403 egress refused: port 22 is not in agents.alpha.permissions.egress_ports (allowed: 80, 8080); add it there in mesh.yaml to allow it',
        );
      } finally {
        await stopSite();
      }
    });

    it("browses a page with the agent's browser, through the egress proxy, by snapshot and refs", async () => {
      const page =
        '<title>Tide table</title><h1>Tides</h1><p>Low water 12:40</p><a href="/next">Next day</a>';
      const stopSite = await startSite(
        mesh.name,
        `(q, r) => { r.setHeader('content-type', 'text/html'); r.end(${JSON.stringify(page)}); }`,
      );
      try {
        llm.reset();
        const sent = await cli('send', 'alpha', 'browse the tide site');
        expect(sent.code, sent.stderr).toBe(0);
        expect(sent.stdout).toContain(`⚙ browser_navigate(url: http://${SITE_ADDRESS}:8080/)`);
        expect(sent.stdout).toContain('⚙ browser_snapshot()');
        expect(sent.stdout.trimEnd().endsWith('The tide site links to the next day.'), sent.stdout).toBe(
          true,
        );
        const snapshot = JSON.stringify(llm.requests.at(-1)?.body);
        expect(snapshot).toMatch(/link \\"Next day\\" \[e\d+\]/);
      } finally {
        await stopSite();
      }
    });

    it('keeps agents from reaching each other while the host reaches both', async () => {
      const beta = await inspectContainer(`openlegion-${mesh.name}-beta`);
      const betaAddress = beta.NetworkSettings.Networks[`openlegion-${mesh.name}`]?.IPAddress;
      expect(betaAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      const probe = `fetch('http://${betaAddress}:8400/status', { signal: AbortSignal.timeout(3000) }).then(() => console.log('reached'), (e) => console.log('refused: ' + (e.cause?.code ?? e.name)))`;
      const fromAlpha = await docker('exec', `openlegion-${mesh.name}-alpha`, 'node', '-e', probe);
      expect(fromAlpha.trim()).toMatch(/^refused: /);
      const status = await cli('status', '--json');
      expect(
        (JSON.parse(status.stdout) as { agents: { state: string }[] }).agents.map((agent) => agent.state),
      ).toEqual(['ready', 'ready']);
    });
  }

  it('does a file task with tools in the agent, streaming each tool call to the CLI', async () => {
    llm.reset();
    const sent = await cli('send', 'alpha', 'make tide notes');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('⚙ write_file(path: notes/tides.md');
    expect(sent.stdout).toContain('⚙ read_file(path: notes/tides.md)');
    expect(sent.stdout.trimEnd().endsWith('Saved and checked: high tide 06:12.')).toBe(true);
    // The file was written in the agent's workspace and read back there: the LLM saw its content.
    const rounds = llm.requests.filter((request) => request.path === '/v1/chat/completions');
    expect(rounds).toHaveLength(3);
    expect(JSON.stringify(rounds.at(-1)?.body)).toContain('high tide 06:12');
  });

  it('takes a steer into a running task after its tool round', async () => {
    llm.reset();
    const task = cli('send', 'beta', 'long chore');
    await expect
      .poll(() => llm.requests.some((request) => JSON.stringify(request.body).includes('long chore')), {
        timeout: 20_000,
      })
      .toBe(true);
    const steer = await cli('send', 'beta', '--mode', 'steer', 'prefer the short form');
    expect(steer.code, steer.stderr).toBe(0);
    expect(steer.stderr).toContain('steered into the running turn');
    const done = await task;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout.trimEnd().endsWith('Short form, as steered.')).toBe(true);
    expect(done.stdout).not.toContain('Chore done the long way.');
  });

  it('restarts an agent killed mid-turn within ten seconds, and runs the turn again', async () => {
    llm.reset();
    const sending = cli('send', 'beta', 'slow job');
    await expect.poll(() => llm.requests.length, { timeout: 20_000 }).toBeGreaterThan(0);
    const killedAt = Date.now();
    if (runtime === 'docker') {
      await docker('kill', '--signal', 'KILL', `openlegion-${mesh.name}-beta`);
    } else {
      const pidFile = path.join(mesh.dataDir, 'run', `openlegion-${mesh.name}-beta.pid`);
      const { pid } = JSON.parse(await readFile(pidFile, 'utf8')) as { pid: number };
      process.kill(pid, 'SIGKILL');
    }
    const betaRestarted = async () => {
      const status = await cli('status', '--json');
      const beta = (
        JSON.parse(status.stdout) as { agents: { name: string; state: string; restarts: number }[] }
      ).agents.find((agent) => agent.name === 'beta');
      return beta?.state === 'ready' && beta.restarts === 1;
    };
    await expect.poll(betaRestarted, { timeout: 15_000, interval: 250 }).toBe(true);
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    const sent = await sending;
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout.trimEnd().endsWith(SLOW_REPLY)).toBe(true);
    expect(llm.requests.filter((request) => request.path === '/v1/chat/completions')).toHaveLength(2);
  });

  it('continues the conversation after the agent is killed with SIGKILL and the mesh restarted', async () => {
    if (runtime === 'docker') {
      await docker('kill', '--signal', 'KILL', `openlegion-${mesh.name}-alpha`);
    } else {
      const pidFile = path.join(mesh.dataDir, 'run', `openlegion-${mesh.name}-alpha.pid`);
      const { pid } = JSON.parse(await readFile(pidFile, 'utf8')) as { pid: number };
      process.kill(pid, 'SIGKILL');
    }
    const stop = await cli('stop');
    expect(stop.code, stop.stderr).toBe(0);
    const restart = await cli('start', '--detach');
    expect(restart.code, restart.stderr).toBe(0);

    llm.reset();
    const sent = await cli('send', 'alpha', 'do you remember?');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe('I remember our talk.\n');
    const [call] = llm.requests.filter((request) => request.path === '/v1/chat/completions');
    // The first exchange (before the kill) opens the history the restarted agent sends.
    const texts = call ? messageTexts(call) : [];
    expect(texts.slice(1, 3)).toEqual(['hello', REPLY]);
    expect(texts.at(-1)).toBe('do you remember?');
  });

  it('stop shuts the background host down gracefully and leaves nothing running behind', async () => {
    const agentPids = await processAgentPids(mesh);
    const stop = await cli('stop');
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`mesh ${mesh.name} stopped`);
    await expect(fetch(`http://127.0.0.1:${mesh.port}/healthz`)).rejects.toThrow();
    // The detached host logged its own orderly shutdown (it once crashed here instead).
    const hostOut = await readFile(path.join(mesh.dataDir, 'host.out'), 'utf8');
    expect(hostOut).toContain(`mesh ${mesh.name} stopped`);
    expect(hostOut).not.toMatch(/Error|ERR_/);
    if (runtime === 'docker') {
      expect(await meshLeftovers(mesh.name)).toEqual({ containers: [], networks: [] });
    } else {
      expect(agentPids).toHaveLength(2);
      expect(agentPids.filter(isAlive)).toEqual([]);
    }
    const status = await cli('status');
    expect(status.code).not.toBe(0);
    expect(status.stderr).toContain('no host is running');
  });
});
