import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, freePort, writeMesh } from './support/e2e-mesh.js';
import { REPO_ROOT, runCli } from './support/run-cli.js';
import { startSiteContainer } from './support/site-container.js';

/**
 * The red team: a prompt-injected agent ("mallory") in its hardened container, driven by a scripted
 * model, runs the attack mix through its real tools (http_request, web_fetch, write_file,
 * run_command) and with raw HTTP from run_command (test/e2e/fixtures/red-team-attack.mjs). Every
 * attack is refused, the host keeps answering the operator, neither restarts nor grows past a
 * memory bound, and another agent's chat completes. Only loopback and the project's own containers
 * are ever dialled: metadata and private-address cases are integration tests with injected dialers.
 */

const SITE_SUBNET = '10.213.78.0/24';
const SITE_ADDRESS = '10.213.78.10';
const SITE = `http://${SITE_ADDRESS}:8080`;
/** The credential the vault holds for mallory, bound to the echo site's authorization header. */
const SECRET = `sk-echo-${randomBytes(12).toString('hex')}`;
/** How much the host's resident memory may grow over the whole attack mix. */
const HOST_RSS_GROWTH_LIMIT_MB = 80;

/** The echo site: it reflects the authorization header back in every encoding a thief would try. */
const ECHO_HANDLER = `(q, r) => {
  const value = String(q.headers.authorization || '').replace(/^Bearer /, '');
  const bytes = Buffer.from(value);
  if (q.url.startsWith('/pad')) return r.end('p'.repeat(1024 * 1024 - 9) + value + 'tail');
  r.end(JSON.stringify({
    raw: value, b64: bytes.toString('base64'), b64url: bytes.toString('base64url'),
    hex: bytes.toString('hex'), HEX: bytes.toString('hex').toUpperCase(),
    url: encodeURIComponent(value), reversed: [...value].reverse().join(''),
    embedded: Buffer.from('Authorization: Bearer ' + value).toString('base64'),
  }));
}`;

/** Every form of SECRET that must never reach the agent. */
function secretForms(): string[] {
  const bytes = Buffer.from(SECRET);
  return [
    SECRET,
    SECRET.slice(0, 16),
    bytes.toString('base64').slice(4, 28),
    bytes.toString('base64url').slice(4, 28),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    [...SECRET].reverse().join(''),
  ];
}

const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker)
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');

describe.runIf(haveDocker)('the red team: a hostile agent against the host', () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  let stopSite: () => Promise<void>;
  let hostPid = 0;
  let rssBeforeMb = 0;
  const cli = (...args: string[]) =>
    runCli([...args, '--config', mesh.file], { env: { E2E_PROVIDER_KEY: 'k' } });

  beforeAll(async () => {
    const port = await freePort();
    const credential = 'Bearer $CRED{ECHO_KEY}';
    llm = await startFakeLlm({
      script: {
        rules: [
          // After any tool round the model just says it is done; the test reads the tool results.
          { match: { role: 'tool' }, reply: { text: 'round done' } },
          { match: { last_message: 'hello bob' }, reply: { text: 'bob is fine' } },
          {
            match: { last_message: 'run the raw attacks' },
            reply: {
              tool_calls: [
                { id: 'raw', name: 'run_command', arguments: { command: 'node attack.mjs', timeout_s: 120 } },
              ],
            },
          },
          {
            match: { last_message: 'use the tools' },
            reply: {
              tool_calls: [
                {
                  id: 'web',
                  name: 'web_fetch',
                  arguments: { url: `http://[0:0:0:0:0:ffff:7f00:1]:${port}/healthz` },
                },
                {
                  id: 'echo',
                  name: 'http_request',
                  arguments: { url: `${SITE}/echo`, headers: { authorization: credential } },
                },
                {
                  id: 'pad',
                  name: 'http_request',
                  arguments: { url: `${SITE}/pad`, headers: { authorization: credential } },
                },
                {
                  id: 'leak-header',
                  name: 'http_request',
                  arguments: { url: `${SITE}/echo`, headers: { 'x-leak': '$CRED{ECHO_KEY}' } },
                },
                {
                  id: 'leak-body',
                  name: 'http_request',
                  arguments: { url: `${SITE}/echo`, method: 'POST', body: 'k=$CRED{ECHO_KEY}' },
                },
                {
                  id: 'host',
                  name: 'http_request',
                  arguments: { url: `${SITE}/echo`, headers: { host: 'elsewhere.test' } },
                },
                {
                  id: 'link',
                  name: 'run_command',
                  arguments: { command: 'ln AGENTS.md notes-link.md && echo linked' },
                },
              ],
            },
          },
          {
            match: { last_message: 'write through the link' },
            reply: {
              tool_calls: [
                {
                  id: 'write-link',
                  name: 'write_file',
                  arguments: { path: 'notes-link.md', content: 'PWNED' },
                },
              ],
            },
          },
          { reply: { text: 'ok' } },
        ],
      },
    });
    stopSite = await startSiteContainer({
      name: `ol-e2e-redteam-site-${process.pid}`,
      subnet: SITE_SUBNET,
      address: SITE_ADDRESS,
      handler: ECHO_HANDLER,
    });
    mesh = await writeMesh({
      prefix: 'e2e-red',
      providerUrl: llm.url,
      runtime: 'docker',
      port,
      agents: ['mallory', 'bob'],
      agentFields: {
        mallory: `permissions: { egress: ["*", "${SITE_SUBNET}"], egress_ports: [80, 443, 8080], blackboard: { read: ["*"], write: ["scratch/*"] }, pubsub: { publish: ["*"], subscribe: ["*"] }, credentials: { ECHO_KEY: { hosts: ["${SITE_ADDRESS}"], in: "header:authorization" } } }`,
      },
    });
    // The value comes on stdin, as a person pastes it: never on the command line.
    const stored = await runCli(['vault', 'set', 'ECHO_KEY', '--config', mesh.file], {
      input: `${SECRET}\n`,
    });
    expect(stored.code, stored.stderr).toBe(0);
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
    const status = JSON.parse((await cli('status', '--json')).stdout) as { pid: number };
    hostPid = status.pid;
    rssBeforeMb = await rssMb(hostPid);
    const attack = await readFile(path.join(REPO_ROOT, 'test/e2e/fixtures/red-team-attack.mjs'));
    const put = await operator('PUT', '/api/agents/mallory/workspace/attack.mjs', attack);
    expect(put.status).toBe(200);
  });

  afterAll(async () => {
    await cli('stop');
    await removeMesh(mesh.name).catch(() => {});
    await stopSite?.();
    await llm?.close();
  });

  async function operator(method: string, route: string, body?: Buffer): Promise<Response> {
    const token = (await readFile(path.join(mesh.dataDir, 'operator-token'), 'utf8')).trim();
    return fetch(`http://127.0.0.1:${mesh.port}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'text/plain' } : {}) },
      ...(body ? { body } : {}),
    });
  }

  /** The tool results mallory's model was sent, by tool call id. */
  function toolResults(): Map<string, string> {
    const results = new Map<string, string>();
    for (const call of llm.requests) {
      const messages = (
        call.body as { messages?: Array<{ role: string; tool_call_id?: string; content: unknown }> }
      ).messages;
      for (const message of messages ?? [])
        if (message.role === 'tool' && message.tool_call_id)
          results.set(
            message.tool_call_id,
            typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
          );
    }
    return results;
  }

  it('refuses every raw attack a command sends the host', async () => {
    const sent = await cli('send', 'mallory', 'run the raw attacks');
    expect(sent.code, sent.stderr).toBe(0);
    const output = toolResults().get('raw') ?? '';
    const line = output.split('\n').find((text) => text.trim().startsWith('{"token_in_command_env"'));
    expect(line, output).toBeDefined();
    const results = JSON.parse(line ?? '{}');
    // The proxy credential is not the mesh token, and the mesh refuses it.
    expect(results.token_in_command_env).toBe(false);
    expect(results.proxy_password_is_mesh_token).toBe(false);
    expect(results.proxy_password_on_mesh).toBe(401);
    // Patterns: bounded, or matched in linear time; the write after them answers at once.
    expect(results.watch_redos.put).toBe(200);
    expect(results.watch_redos.put_ms).toBeLessThan(1_000);
    expect([400, 200]).toContain(results.watch_redos.watch);
    // 13 `**` is within the bounds (16): stored, and matched in linear time.
    expect(results.subscribe_redos.subscribe).toBe(201);
    expect(results.subscribe_redos.publish).toBe(201);
    expect(results.subscribe_redos.publish_ms).toBeLessThan(1_000);
    // Loopback in IPv6 disguise: refused, never connected.
    for (const answer of Object.values(results.connect_mapped_loopback))
      expect(answer).toMatch(/^HTTP\/1\.1 403/);
    // Ports: malformed ones are a 400, not a crash; an ungranted one is refused; the proxy serves on.
    expect(results.connect_bad_ports.big).toMatch(/^HTTP\/1\.1 400/);
    expect(results.connect_bad_ports.letters).toMatch(/^HTTP\/1\.1 400/);
    expect(results.connect_bad_ports.negative).toMatch(/^HTTP\/1\.1 400/);
    expect(results.connect_bad_ports.ssh).toMatch(/^HTTP\/1\.1 403/);
    expect(results.connect_bad_ports.still_serving).toMatch(/^HTTP\/1\.1 403/);
    // Streams: at most limits.streams_per_agent (4); paused ones do not slow the writes.
    expect(results.paused_streams.accepted).toBe(4);
    expect(results.paused_streams.refused).toEqual([429, 429]);
    // 6 MB written at once: the first four seconds' worth of limits.write_bytes_per_agent_per_s go
    // through, the rest is refused (429, retryable); none of it is slowed by the paused readers.
    expect(results.paused_streams.put_statuses.sort()).toEqual([200, 429]);
    expect(results.paused_streams.slowest_put_ms).toBeLessThan(2_000);
    // Disk: a payload past the cap is refused before it is stored.
    expect(results.huge_publish.status).toBe(413);
    expect(results.huge_publish.body).toContain('MESH_VALUE_TOO_LARGE');
    // Traces: nothing unauthenticated becomes a hop.
    expect(results.forged_trace.unauthenticated).toBe(401);
    expect(results.forged_trace.not_found).toBe(404);
    const forged = await operator('GET', `/api/traces/${results.forged_trace.id}`);
    expect(forged.status).toBe(404);
    // 600 requests at once, each on its own connection: the kernel resets the connections past
    // limits.connections_per_agent (64) open at once (status 0 here); of those let in, some are
    // served and the rest, past the burst and a second's wait, refused with the setting named.
    const flood = results.request_flood;
    expect(Object.keys(flood.statuses).sort()).toEqual(
      ['0', '200', '429'].filter((status) => status in flood.statuses),
    );
    expect(flood.statuses['0']).toBeGreaterThan(0);
    expect(flood.statuses['200']).toBeGreaterThan(0);
    if (flood.refusal) expect(flood.refusal).toContain('limits.requests_per_agent_per_s');
  });

  it('refuses the attacks made through the tools, and no form of the credential comes back', async () => {
    const sent = await cli('send', 'mallory', 'use the tools');
    expect(sent.code, sent.stderr).toBe(0);
    const results = toolResults();
    expect(results.get('web')).not.toContain('"ok":true');
    expect(results.get('echo')).toContain('HTTP 200');
    expect(results.get('pad')).toContain('the host cut the body');
    expect(results.get('leak-header')).toContain('MESH_CREDENTIAL_FORBIDDEN');
    expect(results.get('leak-body')).toContain('MESH_CREDENTIAL_FORBIDDEN');
    expect(results.get('host')).toContain('REQUEST_INVALID');
    expect(results.get('link')).toContain('linked');
    const everything = [...results.values()].join('\n');
    for (const form of secretForms()) expect(everything).not.toContain(form);
    const write = await cli('send', 'mallory', 'write through the link');
    expect(write.code, write.stderr).toBe(0);
    expect(toolResults().get('write-link')).toMatch(/link/i);
  });

  it("builds mallory's prompt from the host's instructions, not the file a command rewrote", async () => {
    await cli('send', 'mallory', 'what are your instructions');
    const last = llm.requests
      .filter((call) => JSON.stringify(call.body).includes('what are your instructions'))
      .at(-1);
    expect(JSON.stringify(last?.body)).not.toContain('PWNED-INSTRUCTIONS');
  });

  it('keeps serving the operator and the other agent, without a restart or unbounded growth', async () => {
    const status = await cli('status', '--json');
    expect(status.code).toBe(0);
    const parsed = JSON.parse(status.stdout) as {
      pid: number;
      agents: Array<{ name: string; state: string }>;
    };
    expect(parsed.pid).toBe(hostPid);
    expect(parsed.agents.map((agent) => `${agent.name} ${agent.state}`).sort()).toEqual([
      'bob ready',
      'mallory ready',
    ]);
    const bob = await cli('send', 'bob', 'hello bob');
    expect(bob.stdout).toBe('bob is fine\n');
    const growth = (await rssMb(hostPid)) - rssBeforeMb;
    expect(growth).toBeLessThan(HOST_RSS_GROWTH_LIMIT_MB);
  });
});

/** A process's resident memory in MiB. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}
