import { request } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { FakeClock } from '@openlegion/infra/clock';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentRequestRate } from '../server/index.js';
import { EgressProxy } from './egress-proxy.js';

const auth = `Basic ${Buffer.from('mallory:tok-mallory').toString('base64')}`;
let proxy: EgressProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** A proxy for one agent whose every target is refused (nothing is ever dialled), logging to `lines`. */
async function start(requestsPerSecond: number, lines: string[], clock: FakeClock) {
  const rate = new AgentRequestRate(requestsPerSecond, clock);
  proxy = new EgressProxy({
    identify: (token) => (token === 'tok-mallory' ? 'mallory' : undefined),
    allowlist: () => ['nothing.test'],
    ports: () => [80, 443],
    logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
    resolve: async () => [],
    dial: () => {
      throw new Error('nothing may be dialled');
    },
    rateLimited: async (agent) => (await rate.admit(agent))?.message,
    now: () => clock.now(),
  });
  return proxy.listen(['127.0.0.1'], 0);
}

function connectStatus(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port }, () =>
      socket.write(`CONNECT elsewhere.test:443 HTTP/1.1\r\nProxy-Authorization: ${auth}\r\n\r\n`),
    );
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function plainStatus(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: 'http://elsewhere.test/',
      headers: { 'proxy-authorization': auth },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('egress proxy under an agent that floods it', () => {
  it('paces the agent to limits.requests_per_agent_per_s past its burst, then refuses, for CONNECT and plain requests alike', async () => {
    const clock = new FakeClock(0);
    const port = await start(2, [], clock);
    for (let i = 0; i < 4; i += 1) expect(await connectStatus(port)).toMatch(/^HTTP\/1\.1 403 /);
    for (let i = 0; i < 4; i += 1) expect((await plainStatus(port)).status).toBe(403);
    // The burst is spent: a second's worth (two) waits its turn, the next is refused.
    const paced = [connectStatus(port), plainStatus(port)];
    const refusal =
      'egress: agent "mallory" sends the host more than limits.requests_per_agent_per_s (2 requests a second, bursts of 8, then a second\'s worth waiting); retry in 500 ms';
    const connect = await connectStatus(port);
    expect(connect).toMatch(/^HTTP\/1\.1 429 /);
    expect(connect).toContain(refusal);
    expect(await plainStatus(port)).toEqual({ status: 429, body: `${refusal}\n` });
    await clock.advance(1_000);
    const [tunnel, plain] = await Promise.all(paced);
    expect(tunnel).toMatch(/^HTTP\/1\.1 403 /);
    expect(plain).toMatchObject({ status: 403 });
  });

  it('logs at most ten decisions a second per agent (bursts of ten seconds), then says how many it left out', async () => {
    const clock = new FakeClock(0);
    const lines: string[] = [];
    const port = await start(1_000, lines, clock);
    for (let i = 0; i < 105; i += 1) await connectStatus(port);
    const refused = () =>
      lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'egress refused');
    expect(refused()).toHaveLength(100);
    await clock.advance(100);
    await connectStatus(port);
    expect(refused().at(-1)).toMatchObject({ agent: 'mallory', not_logged_before: 5 });
  });
});
