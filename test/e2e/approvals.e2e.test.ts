import path from 'node:path';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { REPO_ROOT, runCli } from './support/run-cli.js';
import { openTmux } from './support/tmux.js';

const requireDocker = process.env.OPENLEGION_REQUIRE_DOCKER === '1';
const haveDocker = await dockerAnswers();
if (requireDocker && !haveDocker) throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
// The agent runs in a container where Docker answers; elsewhere as a process (the same code path).
const runtime: 'docker' | 'process' = haveDocker ? 'docker' : 'process';

/** The scripted model: each message asks for write_file, which alpha's approval list holds. */
const script = {
  rules: [
    { match: { tool_result: 'created tea.md' }, reply: { text: 'Saved the tea note.' } },
    {
      match: { tool_result: 'the operator refused it' },
      reply: { text: 'Understood, the coffee note stays unsaved.' },
    },
    {
      match: { last_message: 'save the tea note' },
      reply: {
        tool_calls: [{ name: 'write_file', arguments: { path: 'tea.md', content: 'green, no sugar\n' } }],
      },
    },
    {
      match: { last_message: 'save the coffee note' },
      reply: { tool_calls: [{ name: 'write_file', arguments: { path: 'coffee.md', content: 'black\n' } }] },
    },
  ],
};

const APPROVE_ID = /\/approve (ap-[0-9a-f]{32})/;

describe(`tools that ask first (${runtime} runtime)`, () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: 'sk-e2e-approvals' };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env });

  beforeAll(async () => {
    llm = await startFakeLlm({ script });
    mesh = await writeMesh({
      prefix: 'e2e-appr',
      providerUrl: llm.url,
      runtime,
      agents: ['alpha'],
      // A glob, as an operator writes one for a whole MCP server (`github__*`).
      agentFields: { alpha: 'approval: ["write_*"]' },
    });
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('holds a gated call until the operator approves it in the REPL, then runs it; a rejected one does not run', async () => {
    const bin = path.join(REPO_ROOT, 'packages/cli/bundle/bin.mjs');
    const pane = await openTmux(
      `ol-e2e-approvals-${process.pid}`,
      [process.execPath, bin, 'chat', 'alpha', '--config', mesh.file],
      env,
    );
    const prompt = (screen: string) => screen.trimEnd().endsWith('alpha>');
    try {
      await pane.waitFor((screen) => screen.includes('chatting with alpha'));
      await pane.type('save the tea note');
      const asked = await pane.waitFor((screen) => APPROVE_ID.test(screen), 60_000);
      const teaId = APPROVE_ID.exec(asked)?.[1] ?? '';
      expect(asked).toContain(`⏸ write_file waits for your approval: /approve ${teaId}`);
      // The call waits: the other routes still see it, and the agent's lane holds it.
      const listed = await cli('approvals', '--json');
      expect(JSON.parse(listed.stdout)).toEqual([
        expect.objectContaining({
          kind: 'tool_call',
          id: teaId,
          agent: 'alpha',
          tool: 'write_file',
          arguments_preview: '{"path":"tea.md","content":"green, no sugar\\n","append":false}',
        }),
      ]);
      await pane.type('/queue');
      await pane.waitFor((screen) => screen.includes(`alpha wants to run write_file`));
      await pane.type(`/approve ${teaId} fine`);
      await pane.waitFor((screen) => screen.includes('Saved the tea note.') && prompt(screen), 60_000);
      expect(await pane.screen()).toContain("approved: alpha's call of write_file");

      await pane.type('save the coffee note');
      const second = await pane.waitFor(
        (screen) => [...screen.matchAll(new RegExp(APPROVE_ID, 'g'))].some((match) => match[1] !== teaId),
        60_000,
      );
      const coffeeId =
        [...second.matchAll(new RegExp(APPROVE_ID, 'g'))]
          .map((match) => match[1])
          .find((id) => id !== teaId) ?? '';
      await pane.type(`/reject ${coffeeId} no coffee today`);
      await pane.waitFor(
        (screen) => screen.includes('Understood, the coffee note stays unsaved.') && prompt(screen),
        60_000,
      );
      expect(await pane.screen()).toContain('✗ rejected');
    } finally {
      await pane.close();
    }

    // What the model was told about the refused call, in its own words.
    const refused = llm.requests
      .flatMap(
        (request) =>
          (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [],
      )
      .find((message) => message.role === 'tool' && String(message.content).includes('refused'));
    expect(String(refused?.content)).toContain(
      "Not run: write_file needs the operator's approval, and the operator refused it (their note: no coffee today).",
    );
    expect((await cli('approvals')).stdout).toBe('nothing waits for approval\n');

    // The wait is on the turn's trace.
    const traces = JSON.parse((await cli('traces', '--json')).stdout) as Array<{ trace_id: string }>;
    const hops = (
      await Promise.all(
        traces.map(async ({ trace_id }) => JSON.parse((await cli('traces', trace_id, '--json')).stdout)),
      )
    ).flat() as Array<{ hop: string }>;
    expect(hops.map((hop) => hop.hop)).toEqual(
      expect.arrayContaining(['approval.waiting', 'approval.approved', 'approval.rejected']),
    );
  });
});
