import { createLocalEmbedder, defaultScopes, MemoryEngine } from '@openlegion/memory';
import { errorBodySchema } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentServer } from './agent-server.js';

const TOKEN = 'mesh-token-for-tests';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe('agent memory routes', () => {
  let app: FastifyInstance;
  let memory: MemoryEngine;

  beforeEach(async () => {
    memory = MemoryEngine.open({
      file: ':memory:',
      embedder: createLocalEmbedder(),
      defaultScopes: defaultScopes('a'),
    });
    await memory.save([
      { content: 'The user prefers tabs over spaces.', category: 'preferences' },
      { content: 'Release 2.0 ships on 14 March.', category: 'events' },
    ]);
    app = createAgentServer({
      env: { AGENT_ID: 'a', MESH_TOKEN: TOKEN },
      store: { conversationCount: () => 0 },
      logger: pino({ level: 'silent' }),
      version: '0.0.0',
      ready: () => undefined,
      memory: () => memory,
    });
  });

  afterEach(async () => {
    await app.close();
    memory.close();
  });

  it('requires the bearer token', async () => {
    const response = await app.inject({ method: 'GET', url: '/memory/stats' });
    expect(response.statusCode).toBe(401);
  });

  it('searches, flat or hierarchical', async () => {
    for (const hierarchical of [false, true]) {
      const response = await app.inject({
        method: 'POST',
        url: '/memory/search',
        headers: AUTH,
        payload: { query: 'when does release 2.0 ship', hierarchical },
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.strategy).toBe(hierarchical ? 'hierarchical' : 'flat');
      expect(body.hits[0].item.content).toBe('Release 2.0 ships on 14 March.');
    }
  });

  it('answers an empty query with 400 MEM_QUERY_INVALID and an unknown scope with MEM_SCOPE_INVALID', async () => {
    const empty = await app.inject({
      method: 'POST',
      url: '/memory/search',
      headers: AUTH,
      payload: { query: '' },
    });
    expect([empty.statusCode, errorBodySchema.parse(empty.json()).error.code]).toEqual([
      400,
      'MEM_QUERY_INVALID',
    ]);
    const scope = await app.inject({
      method: 'POST',
      url: '/memory/search',
      headers: AUTH,
      payload: { query: 'x', scopes: ['team:x'] },
    });
    expect(errorBodySchema.parse(scope.json()).error.code).toBe('MEM_SCOPE_INVALID');
  });

  it('lists, counts and deletes items', async () => {
    const listed = await app.inject({ method: 'GET', url: '/memory/items?category=events', headers: AUTH });
    const [event] = listed.json().items;
    expect(event.content).toBe('Release 2.0 ships on 14 March.');
    const deleted = await app.inject({ method: 'DELETE', url: `/memory/items/${event.id}`, headers: AUTH });
    expect(deleted.statusCode).toBe(204);
    const again = await app.inject({ method: 'DELETE', url: `/memory/items/${event.id}`, headers: AUTH });
    expect([again.statusCode, errorBodySchema.parse(again.json()).error.code]).toEqual([
      404,
      'MEM_ITEM_NOT_FOUND',
    ]);
    const stats = await app.inject({ method: 'GET', url: '/memory/stats', headers: AUTH });
    expect(stats.json()).toMatchObject({ items: 1, byCategory: { preferences: 1 } });
  });

  it('exports JSON lines that import back into another store', async () => {
    const exported = await app.inject({ method: 'GET', url: '/memory/export', headers: AUTH });
    expect(exported.headers['content-type']).toContain('application/x-ndjson');
    expect(exported.body.trim().split('\n')).toHaveLength(2);
    const imported = await app.inject({
      method: 'POST',
      url: '/memory/import',
      headers: { ...AUTH, 'content-type': 'application/x-ndjson' },
      payload: exported.body,
    });
    expect(imported.json()).toEqual({ imported: 2 });
    expect(memory.stats().items).toBe(4);
  });

  it('refuses a corrupt import naming the line, and imports nothing', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/memory/import',
      headers: { ...AUTH, 'content-type': 'application/x-ndjson' },
      payload: '{"broken":\n',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'MEM_IMPORT_INVALID',
      details: { lines: [{ line: 1 }] },
    });
    expect(memory.stats().items).toBe(2);
  });

  it('runs the doctor', async () => {
    const response = await app.inject({ method: 'GET', url: '/memory/doctor', headers: AUTH });
    expect(response.json()).toMatchObject({ ok: true });
  });
});
