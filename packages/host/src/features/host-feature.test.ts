import { describe, expect, it } from 'vitest';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { requireAgent } from '../auth/index.js';
import type { HostFeature } from './index.js';

/** A feature with its own table, an agent route and an operator route. */
function notesFeature(): HostFeature {
  return {
    name: 'notes',
    migrations: ['CREATE TABLE notes (agent TEXT NOT NULL, text TEXT NOT NULL)'],
    routes(app, { db }) {
      app.post('/mesh/notes', { config: { auth: 'agent' } }, async (request) => {
        db.prepare('INSERT INTO notes VALUES (?, ?)').run(requireAgent(request), String(request.body));
        return { ok: true };
      });
      app.get('/api/notes', { config: { auth: 'operator' } }, async () =>
        db.prepare('SELECT agent, text FROM notes').all(),
      );
    },
  };
}

describe('a host feature', () => {
  it('gets its tables, and its routes with the auth each declares', async () => {
    const host = await startFeatureTestHost([notesFeature()]);
    const posted = await host.app.inject({
      method: 'POST',
      url: '/mesh/notes',
      headers: { ...host.agentAuth('a'), 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(posted.statusCode).toBe(200);
    const asAgent = await host.app.inject({ method: 'GET', url: '/api/notes', headers: host.agentAuth('a') });
    expect(asAgent.json()).toMatchObject({ error: { code: 'AUTH_FORBIDDEN' } });
    const asOperator = await host.app.inject({
      method: 'GET',
      url: '/api/notes',
      headers: host.operatorAuth,
    });
    expect(asOperator.json()).toEqual([{ agent: 'a', text: 'hello' }]);
    await host.stop();
  });
});
