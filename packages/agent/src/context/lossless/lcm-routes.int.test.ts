import { errorBodySchema } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentServer } from '../../agent-server.js';
import { chatTurn, openStores } from './lossless-test-kit.js';
import { SummaryStore } from './summary-store.js';

const TOKEN = 'mesh-token-for-tests';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe('agent lcm routes', () => {
  let app: FastifyInstance;
  let summary: number;

  beforeEach(() => {
    const { conversations, db } = openStores();
    for (let index = 1; index <= 30; index++) {
      conversations.append('c1', chatTurn(index, index === 4 ? 'The gate code is 5521.' : undefined));
    }
    const store = new SummaryStore(db);
    summary = store.add({
      conversationId: 'c1',
      depth: 0,
      start: 0,
      end: 20,
      children: [],
      content: 'Turns 1 to 10 of the plan.',
      tokens: 8,
      mode: 'normal',
      anchor: '',
      createdAt: 0,
    }).id;
    app = createAgentServer({
      env: { AGENT_ID: 'a', MESH_TOKEN: TOKEN },
      store: { conversationCount: () => 1 },
      logger: pino({ level: 'silent' }),
      version: '0.0.0',
      ready: () => undefined,
      lcm: () => store,
    });
  });

  afterEach(async () => {
    await app.close();
  });

  it('requires the bearer token', async () => {
    const response = await app.inject({ method: 'POST', url: '/lcm/grep', payload: { pattern: 'gate' } });
    expect(response.statusCode).toBe(401);
  });

  it('greps, describes and expands', async () => {
    const grep = await app.inject({
      method: 'POST',
      url: '/lcm/grep',
      headers: AUTH,
      payload: { pattern: 'gate code' },
    });
    expect(grep.statusCode).toBe(200);
    expect(grep.json().text).toContain('message #7 (c1, user):');
    const describe = await app.inject({ method: 'GET', url: `/lcm/describe/S${summary}`, headers: AUTH });
    expect(describe.json().text).toContain('messages 1–20 (20 messages)');
    const expand = await app.inject({ method: 'GET', url: `/lcm/expand/${summary}?from=7`, headers: AUTH });
    expect(expand.json().text).toContain('#7 user: Turn 4 begins here. The gate code is 5521.');
    const paged = await app.inject({
      method: 'GET',
      url: '/lcm/expand?conversation=c1&from=59',
      headers: AUTH,
    });
    expect(paged.json().text).toContain('#60 assistant: Noted turn 30.');
  });

  it('answers bad input with the error code and message', async () => {
    const empty = await app.inject({
      method: 'POST',
      url: '/lcm/grep',
      headers: AUTH,
      payload: { pattern: '' },
    });
    expect(empty.statusCode).toBe(400);
    expect(errorBodySchema.parse(empty.json()).error).toMatchObject({
      code: 'REQUEST_INVALID',
      message: 'the pattern is empty; give one or more words to look for',
    });
    const long = await app.inject({
      method: 'POST',
      url: '/lcm/grep',
      headers: AUTH,
      payload: { pattern: 'x'.repeat(501) },
    });
    expect(long.statusCode).toBe(400);
    expect(errorBodySchema.parse(long.json()).error.code).toBe('REQUEST_INVALID');
    const missing = await app.inject({ method: 'GET', url: '/lcm/describe/S404', headers: AUTH });
    expect(missing.statusCode).toBe(404);
    expect(errorBodySchema.parse(missing.json()).error).toMatchObject({
      code: 'LCM_SUMMARY_NOT_FOUND',
      message: 'no readable summary S404; lcm_grep finds summaries and messages',
    });
    const badId = await app.inject({ method: 'GET', url: '/lcm/describe/abc', headers: AUTH });
    expect(badId.statusCode).toBe(400);
  });
});
