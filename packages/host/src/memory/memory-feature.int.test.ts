import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MeshConfigInput, meshConfigSchema } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { memoryFeature, SHARED_MEMORY } from './memory-feature.js';

const config: MeshConfigInput = {
  llm: { providers: { openai: {} } },
  agents: {
    a: { permissions: { memory: { read: ['global', 'squad:*'], write: ['global', 'squad:research'] } } },
    b: { permissions: { memory: { read: ['global'], write: ['global'] } } },
    c: {},
  },
  limits: { shared_memory_items_per_agent: 2 },
};

const hosts: FeatureTestHost[] = [];
const dirs: string[] = [];
async function start(options: { dataDir?: string } = {}) {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'shared-memory-'));
  dirs.push(dataDir);
  const host = await startFeatureTestHost([memoryFeature()], config, { dataDir });
  hosts.push(host);
  const headers = (who: string) => (who === 'operator' ? host.operatorAuth : host.agentAuth(who));
  const base = (who: string) => (who === 'operator' ? '/api/memory' : '/mesh/memory');
  const save = (who: string, scope: string, payload: object) =>
    host.app.inject({ method: 'POST', url: `${base(who)}/${scope}/items`, headers: headers(who), payload });
  const search = (who: string, scope: string, query: string) =>
    host.app.inject({
      method: 'POST',
      url: `${base(who)}/${scope}/search`,
      headers: headers(who),
      payload: { query },
    });
  const remove = (who: string, scope: string, id: number) =>
    host.app.inject({ method: 'DELETE', url: `${base(who)}/${scope}/items/${id}`, headers: headers(who) });
  return { host, dataDir, save, search, remove };
}
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('shared memory scopes', () => {
  it("keeps a squad's episodic log append-only (the same lesson twice is two entries) and merges elsewhere", async () => {
    const { save } = await start();
    const lesson = { content: '[RESEARCHER] Tide tables are a day ahead.', category: 'episodic' };
    expect((await save('operator', 'squad:research', lesson)).json().action).toBe('created');
    expect((await save('operator', 'squad:research', lesson)).json().action).toBe('created');
    const program = { ...lesson, category: 'program' };
    expect((await save('operator', 'squad:research', program)).json().action).toBe('created');
    expect((await save('operator', 'squad:research', program)).json().action).not.toBe('created');
  });

  it('lets one agent find the global fact another saved, naming the writer', async () => {
    const { save, search } = await start();
    const saved = await save('a', 'global', { content: 'The staging database lives on port 5433.' });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ scope: 'global', action: 'created', id: expect.any(Number) });
    const found = await search('b', 'global', 'which port does the staging database use');
    expect(found.statusCode).toBe(200);
    const { hits } = found.json();
    expect(hits[0].item).toMatchObject({
      scope: 'global',
      writer: 'a',
      content: 'The staging database lives on port 5433.',
    });
  });

  it('keeps squads apart: a squad fact is not found in global or another squad', async () => {
    const { save, search } = await start();
    await save('a', 'squad:research', { content: 'The research squad meets on Tuesdays.' });
    expect((await search('a', 'squad:research', 'when does the squad meet')).json().hits).toHaveLength(1);
    expect((await search('a', 'global', 'when does the squad meet')).json().hits).toEqual([]);
    expect((await search('a', 'squad:ops', 'when does the squad meet')).json().hits).toEqual([]);
  });

  it('refuses an agent without the permission, naming the mesh.yaml line to add', async () => {
    const { save, search } = await start();
    const read = await search('c', 'global', 'anything');
    expect(read.statusCode).toBe(403);
    expect(read.json().error).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message:
        'agent "c" may not memory read "global": agents.c.permissions.memory.read in mesh.yaml is []; ' +
        'add "global" to agents.c.permissions.memory.read in mesh.yaml to allow it',
    });
    const write = await save('b', 'squad:research', { content: 'x' });
    expect(write.statusCode).toBe(403);
    expect(write.json().error.message).toBe(
      'agent "b" may not memory write "squad:research": agents.b.permissions.memory.write in mesh.yaml is ["global"]; ' +
        'add "squad:research" to agents.b.permissions.memory.write in mesh.yaml to allow it',
    );
    // A squad glob grants reading every squad, but writing only the one named.
    expect((await search('a', 'squad:ops', 'x')).statusCode).toBe(200);
    expect((await save('a', 'squad:ops', { content: 'x' })).statusCode).toBe(403);
  });

  it('refuses a scope the host does not keep, before the permission', async () => {
    const { search, save } = await start();
    for (const scope of ['agent:a', 'project:x', 'squad:', 'squad:*', 'team:x']) {
      const refused = await search('a', encodeURIComponent(scope), 'anything');
      expect(refused.statusCode, scope).toBe(400);
      expect(refused.json().error.code, scope).toBe('MEM_SCOPE_INVALID');
    }
    const own = await save('a', 'agent:a', { content: 'x' });
    expect(own.json().error.message).toBe(
      '"agent:a" is not a shared memory scope: the host keeps global and squad:NAME (letters, digits, . _ -); ' +
        "an agent's own memory stays in its container",
    );
  });

  it('refuses oversized text: a fact past 20,000 characters, and a body past the cap unread', async () => {
    const { save } = await start();
    const long = await save('a', 'global', { content: 'x'.repeat(20_001) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.code).toBe('REQUEST_INVALID');
    expect(long.json().error.message).toContain('content');
    const huge = await save('a', 'global', { content: 'x'.repeat(400_000) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('MESH_VALUE_TOO_LARGE');
  });

  it('holds each agent to limits.shared_memory_items_per_agent, and counts a deleted item', async () => {
    const { save, remove } = await start();
    const first = (await save('a', 'global', { content: 'Fact one about the lighthouse keeper.' })).json();
    await save('a', 'global', { content: 'Fact two about orbital mechanics and rockets.' });
    const refused = await save('a', 'global', { content: 'Fact three about sourdough starters.' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({
      code: 'MESH_QUOTA_EXCEEDED',
      message:
        'agent "a" already has 2 items in the shared memory scopes (limits.shared_memory_items_per_agent in mesh.yaml); delete some of its own first',
    });
    // Another agent's share is its own.
    expect((await save('b', 'global', { content: 'Fact by b about tidal pools.' })).statusCode).toBe(200);
    expect((await remove('a', 'global', first.id)).statusCode).toBe(200);
    expect((await save('a', 'global', { content: 'Fact three about sourdough starters.' })).statusCode).toBe(
      200,
    );
  });

  it('lets an agent delete only what it wrote; the operator deletes anything', async () => {
    const { save, remove, host } = await start();
    const { id } = (await save('a', 'global', { content: 'A note only a should remove.' })).json();
    const refused = await remove('b', 'global', id);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('MESH_FORBIDDEN');
    expect(refused.json().error.message).toContain('agent "a" wrote it');
    // An item asked for under another scope is missing there.
    const elsewhere = await remove('a', 'squad:research', id);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json().error.code).toBe('MEM_ITEM_NOT_FOUND');
    expect((await remove('operator', 'global', id)).statusCode).toBe(200);
    const gone = await host.app.inject({
      method: 'GET',
      url: `/mesh/memory/global/items/${id}`,
      headers: host.agentAuth('a'),
    });
    expect(gone.statusCode).toBe(404);
  });

  it('gives the operator every scope: save, list and get', async () => {
    const { save, host } = await start();
    const { id } = (await save('operator', 'squad:ops', { content: 'On-call rotates every Monday.' })).json();
    const list = await host.app.inject({
      method: 'GET',
      url: '/api/memory/squad:ops/items',
      headers: host.operatorAuth,
    });
    expect(list.json().items).toEqual([expect.objectContaining({ id, writer: null, scope: 'squad:ops' })]);
    const one = await host.app.inject({
      method: 'GET',
      url: `/api/memory/squad:ops/items/${id}`,
      headers: host.operatorAuth,
    });
    expect(one.json().item.content).toBe('On-call rotates every Monday.');
  });

  it('keeps memories across a restart, in <data_dir>/shared-memory.db, with the quota counted again', async () => {
    const first = await start();
    await first.save('a', 'global', { content: 'The deploy key rotates quarterly.' });
    await first.save('a', 'global', { content: 'Backups run at 02:00 UTC every night.' });
    await first.host.stop();
    hosts.splice(hosts.indexOf(first.host), 1);
    const again = await start({ dataDir: first.dataDir });
    expect((await again.search('b', 'global', 'when do backups run')).json().hits[0].item.writer).toBe('a');
    expect((await again.save('a', 'global', { content: 'A third fact.' })).statusCode).toBe(429);
    expect(again.host.service(SHARED_MEMORY).embedder).toMatch(/^local-hash/);
  });
});

describe('the shared memory store on disk', () => {
  it('is opened when the host starts, not when it is built', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shared-memory-'));
    dirs.push(dataDir);
    const built = await startFeatureTestHost([memoryFeature()], config, { dataDir, start: false });
    hosts.push(built);
    expect(existsSync(join(dataDir, 'shared-memory.db'))).toBe(false);
    await start({ dataDir });
    expect(existsSync(join(dataDir, 'shared-memory.db'))).toBe(true);
  });
});

describe('permissions.memory in mesh.yaml', () => {
  it('refuses a pattern that names no shared scope, or a wild one, naming the field', () => {
    const parse = (pattern: string) =>
      meshConfigSchema.safeParse({
        llm: { providers: { openai: {} } },
        agents: { a: { permissions: { memory: { read: [pattern] } } } },
      });
    for (const good of ['global', 'squad:research', 'squad:*', '*'])
      expect(parse(good).success, good).toBe(true);
    for (const bad of ['team:x', 'agent:a', '', `squad:${'*'.repeat(17)}`]) {
      const result = parse(bad);
      expect(result.success, bad).toBe(false);
      expect(result.error?.issues[0]?.path, bad).toEqual(['agents', 'a', 'permissions', 'memory', 'read', 0]);
    }
    expect(parse('team:x').error?.issues[0]?.message).toBe(
      'a shared memory scope pattern is global, squad:NAME, a squad glob such as squad:*, or *',
    );
  });

  it('grants nothing by default', () => {
    const parsed = meshConfigSchema.parse({ llm: { providers: { openai: {} } }, agents: { a: {} } });
    expect(parsed.agents.a?.permissions.memory).toEqual({ read: [], write: [] });
  });
});
