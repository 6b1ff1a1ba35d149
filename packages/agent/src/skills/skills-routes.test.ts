import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorBodySchema, skillsListSchema } from '@openlegion/protocol';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentServer } from '../agent-server.js';
import { skillSource } from './skill-source.js';

const TOKEN = 'mesh-token-for-tests';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const fixtures = fileURLToPath(new URL('../../test/fixtures/skills/', import.meta.url));

describe('GET /skills/ and DELETE /skills/NAME', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const serve = () => {
    const workspace = mkdtempSync(join(tmpdir(), 'skills-routes-'));
    dirs.push(workspace);
    cpSync(join(fixtures, 'workspace', 'skills'), join(workspace, 'skills'), { recursive: true });
    const skills = skillSource({
      workspace,
      fleetDir: join(fixtures, 'fleet'),
      disabled: () => ['mac-notes'],
    });
    const app = createAgentServer({
      env: { AGENT_ID: 'a', MESH_TOKEN: TOKEN },
      store: { conversationCount: () => 0 },
      logger: pino({ level: 'silent' }),
      version: '1',
      ready: () => undefined,
      workspace,
      skills,
    });
    return { app, workspace };
  };

  it('lists every skill the agent sees, the ones left out with their reason', async () => {
    const { app } = serve();
    const response = await app.inject({ method: 'GET', url: '/skills/', headers: AUTH });
    const { skills } = skillsListSchema.parse(response.json());
    const byName = (name: string, source: string) =>
      skills.find((entry) => entry.name === name && entry.source === source);
    expect(byName('csv-summary', 'workspace')).toEqual({
      name: 'csv-summary',
      description:
        "Summarise a CSV file, the agent's own refined version. Use for any .csv the user gives you.",
      source: 'workspace',
      path: 'skills/csv-summary',
      eligible: true,
    });
    expect(byName('mac-notes', 'fleet')?.reason).toBe('disabled in mesh.yaml (agents.NAME.skills.disabled)');
    await app.close();
  });

  it("removes a skill from the agent's workspace, and answers SKILL_NOT_FOUND for one it does not have", async () => {
    const { app, workspace } = serve();
    const removed = await app.inject({ method: 'DELETE', url: '/skills/csv-summary', headers: AUTH });
    expect([
      removed.statusCode,
      removed.json(),
      existsSync(join(workspace, 'skills', 'csv-summary')),
    ]).toEqual([200, { removed: 'csv-summary' }, false]);
    const again = await app.inject({ method: 'DELETE', url: '/skills/csv-summary', headers: AUTH });
    expect([again.statusCode, errorBodySchema.parse(again.json()).error]).toEqual([
      404,
      expect.objectContaining({
        code: 'SKILL_NOT_FOUND',
        message: `no skill "csv-summary" in the agent's workspace`,
      }),
    ]);
    const bad = await app.inject({ method: 'DELETE', url: '/skills/..%2F..%2Fetc', headers: AUTH });
    expect(errorBodySchema.parse(bad.json()).error.code).toBe('REQUEST_INVALID');
    await app.close();
  });
});
