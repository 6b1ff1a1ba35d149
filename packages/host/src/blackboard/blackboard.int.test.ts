import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readSseFrames } from '@openlegion/infra/sse';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { blackboardFeature } from './blackboard-feature.js';
import { MAX_VALUE_BYTES } from './blackboard-store.js';

const config: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: {
    researcher: { permissions: { blackboard: { read: ['research/*', 'plan'], write: ['research/*'] } } },
    writer: { permissions: { blackboard: { read: ['research/*'] } } },
  },
};

const hosts: FeatureTestHost[] = [];
async function start(options: { dbFile?: string } = {}) {
  const host = await startFeatureTestHost([blackboardFeature()], config, options);
  hosts.push(host);
  const call = (
    agent: string | 'operator',
    method: 'GET' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
  ) =>
    host.app.inject({
      method,
      url,
      headers: agent === 'operator' ? host.operatorAuth : host.agentAuth(agent),
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  return { host, call };
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
});

describe('blackboard', () => {
  it('puts, gets, versions and audits an entry; readers within their globs see it', async () => {
    const { call } = await start();
    const put = await call('researcher', 'PUT', '/mesh/blackboard/entries/research/tides', {
      value: { n: 1 },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json().entry).toMatchObject({
      key: 'research/tides',
      value: { n: 1 },
      version: 1,
      updated_by: 'researcher',
    });
    await call('researcher', 'PUT', '/mesh/blackboard/entries/research/tides', { value: { n: 2 } });
    const got = await call('writer', 'GET', '/mesh/blackboard/entries/research/tides');
    expect(got.json().entry).toMatchObject({ value: { n: 2 }, version: 2 });
    const history = await call('operator', 'GET', '/api/blackboard/history/research/tides');
    expect(
      history.json().history.map((row: { version: number; by: string }) => [row.version, row.by]),
    ).toEqual([
      [1, 'researcher'],
      [2, 'researcher'],
    ]);
  });

  it('compare-and-swap: 409 naming the version on a mismatch, if_version 0 creates only', async () => {
    const { call } = await start();
    const url = '/mesh/blackboard/entries/research/lock';
    expect((await call('researcher', 'PUT', url, { value: 'a', if_version: 0 })).statusCode).toBe(200);
    const again = await call('researcher', 'PUT', url, { value: 'b', if_version: 0 });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({
      code: 'MESH_VERSION_CONFLICT',
      message: '"research/lock" is at version 1, not 0',
    });
    expect((await call('researcher', 'PUT', url, { value: 'c', if_version: 1 })).json().entry.version).toBe(
      2,
    );
    expect((await call('researcher', 'DELETE', `${url}?if_version=1`)).statusCode).toBe(409);
    expect((await call('researcher', 'DELETE', `${url}?if_version=2`)).statusCode).toBe(200);
    expect((await call('researcher', 'GET', url)).json().error.code).toBe('MESH_KEY_NOT_FOUND');
  });

  it('forgets expired entries: gone from get and list, then purged with an audit row', async () => {
    const { host, call } = await start();
    await call('researcher', 'PUT', '/mesh/blackboard/entries/research/short', { value: 1, ttl_s: 30 });
    await call('researcher', 'PUT', '/mesh/blackboard/entries/research/long', { value: 2 });
    const list = async () =>
      (await call('writer', 'GET', '/mesh/blackboard/entries?prefix=research/'))
        .json()
        .entries.map((e: { key: string }) => e.key);
    expect(await list()).toEqual(['research/long', 'research/short']);
    await host.clock.advance(30_000);
    expect(await list()).toEqual(['research/long']);
    expect((await call('writer', 'GET', '/mesh/blackboard/entries/research/short')).statusCode).toBe(404);
    await host.clock.advance(60_000);
    const history = await call('operator', 'GET', '/api/blackboard/history/research/short');
    expect(history.json().history.at(-1)).toMatchObject({ action: 'expire', by: 'host' });
  });

  it('refuses writes and reads outside the permissions with 403 naming them, and any unknown agent', async () => {
    const { call } = await start();
    const write = await call('writer', 'PUT', '/mesh/blackboard/entries/research/x', { value: 1 });
    expect(write.statusCode).toBe(403);
    expect(write.json().error.message).toBe(
      'agent "writer" may not blackboard write "research/x": agents.writer.permissions.blackboard.write in mesh.yaml is []',
    );
    expect((await call('writer', 'GET', '/mesh/blackboard/entries/plan')).statusCode).toBe(403);
    await call('operator', 'PUT', '/api/blackboard/entries/plan', { value: 'secret plan' });
    const listed = await call('writer', 'GET', '/mesh/blackboard/entries');
    expect(listed.json().entries).toEqual([]);
    expect((await call('stranger', 'GET', '/mesh/blackboard/entries/plan')).statusCode).toBe(403);
  });

  it('names the bad field: an oversized value is 413, a bad key or body 400, nothing written', async () => {
    const { call } = await start();
    const big = await call('researcher', 'PUT', '/mesh/blackboard/entries/research/big', {
      value: 'x'.repeat(MAX_VALUE_BYTES),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('MESH_VALUE_TOO_LARGE');
    const noValue = await call('researcher', 'PUT', '/mesh/blackboard/entries/research/a', { valu: 1 });
    expect(noValue.statusCode).toBe(400);
    expect(noValue.json().error.message).toMatch(/value/);
    const ttl = await call('researcher', 'PUT', '/mesh/blackboard/entries/research/a', {
      value: 1,
      ttl_s: -5,
    });
    expect(ttl.json().error.message).toMatch(/ttl_s/);
    expect((await call('operator', 'GET', '/api/blackboard/entries')).json().entries).toEqual([]);
  });

  it('keeps every acknowledged write across a restart over the same mesh.db', async () => {
    const dbFile = path.join(mkdtempSync(path.join(tmpdir(), 'blackboard-')), 'mesh.db');
    const first = await start({ dbFile });
    for (let n = 1; n <= 20; n += 1)
      await first.call('researcher', 'PUT', `/mesh/blackboard/entries/research/${n}`, { value: n });
    await first.host.stop();
    const second = await start({ dbFile });
    const entries = (await second.call('operator', 'GET', '/api/blackboard/entries?limit=100')).json()
      .entries;
    expect(entries).toHaveLength(20);
  });

  it('streams committed changes to a watcher over SSE, only for keys it may read and that match', async () => {
    const { host, call } = await start();
    await host.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}`;
    const controller = new AbortController();
    const response = await fetch(`${url}/mesh/blackboard/watch?pattern=research/*`, {
      headers: host.agentAuth('writer'),
      signal: controller.signal,
    });
    const frames = readSseFrames(response.body as unknown as AsyncIterable<Uint8Array>);
    await call('operator', 'PUT', '/api/blackboard/entries/plan', { value: 'unseen' });
    await call('researcher', 'PUT', '/mesh/blackboard/entries/research/a', { value: 1 });
    await call('researcher', 'DELETE', '/mesh/blackboard/entries/research/a');
    const seen: Array<{ event: string | undefined; key: string }> = [];
    for await (const frame of frames) {
      seen.push({ event: frame.event, key: JSON.parse(frame.data).key });
      if (seen.length === 2) break;
    }
    controller.abort();
    expect(seen).toEqual([
      { event: 'put', key: 'research/a' },
      { event: 'delete', key: 'research/a' },
    ]);
  });
});
