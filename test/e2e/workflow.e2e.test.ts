import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowRunView } from '@openlegion/protocol';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerAnswers, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, writeMesh } from './support/e2e-mesh.js';
import { runCli } from './support/run-cli.js';

const requireDocker = process.env.OPENLEGION_REQUIRE_DOCKER === '1';
const haveDocker = await dockerAnswers();
if (requireDocker && !haveDocker) throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');
const runtimes: Array<'docker' | 'process'> = haveDocker ? ['docker', 'process'] : ['process'];

const AGENTS = ['w0', 'w1', 'w2', 'w3', 'w4'];
const BRANCH_LENGTH = 3;

/**
 * 20 steps: `kickoff`, then five parallel branches of three steps (one agent each), a `join`
 * waiting for every branch, and three steps after it.
 */
function twentyStepWorkflow(): string {
  const steps = ['  - { id: kickoff, agent: w0, task: "step kickoff" }'];
  for (const [branch, agent] of AGENTS.entries()) {
    for (let depth = 0; depth < BRANCH_LENGTH; depth++) {
      const after = depth === 0 ? 'kickoff' : `b${branch}_${depth - 1}`;
      steps.push(
        `  - { id: b${branch}_${depth}, agent: ${agent}, task: "step b${branch}_${depth} after \${steps.${after}.status}", depends_on: ${after} }`,
      );
    }
  }
  const tails = AGENTS.map((_, branch) => `b${branch}_${BRANCH_LENGTH - 1}`);
  steps.push(`  - { id: join, agent: w1, task: "step join", depends_on: [${tails.join(', ')}] }`);
  for (const [i, after] of ['join', 'final0', 'final1'].entries())
    steps.push(`  - { id: final${i}, agent: w${i + 2}, task: "step final${i}", depends_on: ${after} }`);
  return `name: wide\nsteps:\n${steps.join('\n')}\n`;
}

describe.each(runtimes)('a 20-step workflow across a host kill (%s runtime)', (runtime) => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  const env = { E2E_PROVIDER_KEY: 'sk-e2e-workflow' };
  const cli = (...args: string[]) => runCli([...args, '--config', mesh.file], { env, timeoutMs: 180_000 });
  const status = async (run: string): Promise<WorkflowRunView> => {
    const shown = await cli('workflow', 'status', run, '--json');
    expect(shown.code, shown.stderr).toBe(0);
    return JSON.parse(shown.stdout) as WorkflowRunView;
  };
  const waitFor = async (run: string, done: (view: WorkflowRunView) => boolean, timeoutMs: number) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const view = await status(run);
      if (done(view)) return view;
      if (Date.now() > until)
        throw new Error(
          `run ${run} did not get there: ${JSON.stringify(view.steps.map((s) => [s.id, s.state]))}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  beforeAll(async () => {
    // Each step's answer streams for about a second, so that the kill lands mid-run.
    llm = await startFakeLlm({
      script: {
        rules: [
          {
            match: { last_message: 'step ' },
            reply: { chunks: ['done ', 'with ', 'the ', 'step'], chunk_delay_ms: 250 },
          },
        ],
      },
    });
    mesh = await writeMesh({
      prefix: `wf-${runtime.slice(0, 4)}`,
      providerUrl: llm.url,
      runtime,
      agents: AGENTS,
    });
    await mkdir(path.join(mesh.dir, 'workflows'));
    await writeFile(path.join(mesh.dir, 'workflows', 'wide.yaml'), twentyStepWorkflow());
    await writeFile(mesh.file, `${await readFile(mesh.file, 'utf8')}workflows: workflows\n`);
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
  });

  afterAll(async () => {
    await cli('stop');
    await llm?.close();
    if (runtime === 'docker') await removeMesh(mesh.name);
  });

  it('validates the file through the CLI', async () => {
    const validated = await cli('workflow', 'validate', path.join(mesh.dir, 'workflows', 'wide.yaml'));
    expect(validated.stdout).toContain('ok (workflow wide, 20 steps)');
  });

  it('resumes after kill -9 of the host, finishes, and shows no step result twice', async () => {
    const started = await cli('workflow', 'run', 'wide', '--json');
    expect(started.code, started.stderr).toBe(0);
    const { id } = JSON.parse(started.stdout) as WorkflowRunView;
    // Mid-run: some branch steps done, others running.
    const before = await waitFor(
      id,
      (view) => view.steps.filter((step) => step.state === 'done').length >= 4,
      60_000,
    );
    expect(before.state).toBe('running');
    const { pid } = JSON.parse((await cli('status', '--json')).stdout) as { pid: number };
    process.kill(pid, 'SIGKILL');
    expect((await cli('stop')).code).toBe(0); // removes what the killed host left
    const restart = await cli('start', '--detach');
    expect(restart.code, restart.stdout + restart.stderr).toBe(0);

    const after = await waitFor(id, (view) => view.state !== 'running', 120_000);
    expect(after.state).toBe('succeeded');
    expect(after.steps.every((step) => step.state === 'done')).toBe(true);
    // Each step's LLM calls were attributed to it (through its lane item's trace id).
    expect(after.steps.filter((step) => step.agent !== null).every((step) => step.cost_usd !== null)).toBe(
      true,
    );
    const listed = await runCli(['workflow', 'status', id, '--config', mesh.file], { env });
    expect(listed.stdout).toMatch(/\[1\] kickoff +✔ done/);
    // Each step's visible result once: one finished lane item per step of the run.
    const items = await fetchLaneItems(mesh);
    const finished = items.filter(
      (item) => item.source === 'workflow' && item.sourceRef?.startsWith(`${id}/`) && item.state === 'done',
    );
    const perStep = new Map<string, number>();
    for (const item of finished)
      perStep.set(item.sourceRef ?? '', (perStep.get(item.sourceRef ?? '') ?? 0) + 1);
    expect(perStep.size).toBe(20);
    expect([...perStep.values()].every((count) => count === 1)).toBe(true);
  });
});

/** The host's lane items (`GET /api/lanes`), with the operator token from the data dir. */
async function fetchLaneItems(
  mesh: E2eMesh,
): Promise<Array<{ source: string; sourceRef: string | null; state: string }>> {
  const token = (await readFile(path.join(mesh.dataDir, 'operator-token'), 'utf8')).trim();
  const response = await fetch(`http://127.0.0.1:${mesh.port}/api/lanes?limit=500`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (
    (await response.json()) as { items: Array<{ source: string; sourceRef: string | null; state: string }> }
  ).items;
}
