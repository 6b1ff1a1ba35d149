import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

/**
 * Skills end to end (issue 21): a public-format skill installed into the fleet's skills/ with the
 * CLI is seen by the agent in its container (a read-only mount) or process, listed by
 * `skills list AGENT` with the bundled ones, named in the prompt, viewed with skill_view and
 * followed by a scripted model, which reads the skill's file with run_command. A skill installed
 * into the agent's workspace with --agent then wins over the fleet's copy.
 */
const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker) {
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
}
const runtimes: Array<'docker' | 'process'> = haveDocker ? ['docker', 'process'] : ['process'];
const PROVIDER_KEY = 'sk-e2e-provider-key-skills';
const fixtures = fileURLToPath(new URL('../../packages/agent/test/fixtures/skills/', import.meta.url));

const script = {
  rules: [
    { match: { tool_result: 'rows;' }, reply: { text: 'Followed the csv-summary skill.' } },
    {
      match: { tool_result: 'CSV summary (fleet copy)' },
      reply: {
        tool_calls: [
          {
            id: 'script',
            name: 'run_command',
            arguments: { command: 'cat "$AGENT_FLEET_SKILLS_DIR/csv-summary/scripts/summarize.py"' },
          },
        ],
      },
    },
    {
      match: { last_message: 'sum up data.csv' },
      reply: { tool_calls: [{ id: 'view', name: 'skill_view', arguments: { name: 'csv-summary' } }] },
    },
  ],
  default: { text: 'ok' },
};

describe.each(runtimes)('skills (%s runtime)', (runtime) => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: PROVIDER_KEY };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: `e2e-skills-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agents: ['alpha'],
    });
    const installed = await cli('skills', 'install', path.join(fixtures, 'fleet', 'csv-summary'));
    expect(installed.code, installed.stderr).toBe(0);
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    if (runtime === 'docker') await removeMesh(mesh.name).catch(() => {});
    await llm?.close();
  });

  it('lists the fleet skill and the bundled ones as the agent sees them', async () => {
    const listed = await cli('skills', 'list', 'alpha');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/csv-summary\s+fleet\s+ok/);
    expect(listed.stdout).toMatch(/skill-authoring\s+bundled\s+ok/);
  });

  it('names the skill in the prompt; the model views it and runs what it says', async () => {
    const sent = await cli('send', 'alpha', 'sum up data.csv');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('Followed the csv-summary skill.');
    const bodies = llm.requests.map(
      (request) => request.body as { messages: { role: string; content: string; tool_call_id?: string }[] },
    );
    const turn = bodies.find((body) =>
      body.messages.some((m) => typeof m.content === 'string' && m.content.includes('sum up data.csv')),
    );
    expect(turn?.messages[0]?.content).toContain('- csv-summary: Summarise a CSV file - row count');
    const script = bodies.flatMap((body) => body.messages).find((m) => m.tool_call_id === 'script');
    expect(script?.content).toContain('import csv, sys');
  });

  it('lets a skill installed into the workspace with --agent win over the fleet copy', async () => {
    const installed = await cli(
      'skills',
      'install',
      path.join(fixtures, 'workspace', 'skills', 'csv-summary'),
      '--agent',
      'alpha',
    );
    expect(installed.code, installed.stderr).toBe(0);
    const listed = await cli('skills', 'list', 'alpha');
    expect(listed.stdout).toMatch(/csv-summary\s+workspace\s+ok/);
    expect(listed.stdout).toMatch(/csv-summary\s+fleet\s+left out: shadowed by the workspace skill/);
    const removed = await cli('skills', 'remove', 'csv-summary', '--agent', 'alpha');
    expect(removed.code, removed.stderr).toBe(0);
  });
});
