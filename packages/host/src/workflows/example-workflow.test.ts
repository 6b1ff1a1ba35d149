import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseFakeLlmScript } from '@openlegion/testkit';
import { describe, expect, it } from 'vitest';
import { startWorkflowTestHost, statesOf } from '../../test/workflow-test-host.js';
import { parseMeshConfig } from '../config/index.js';
import { loadWorkflowFile } from './index.js';

const repo = (file: string) => fileURLToPath(new URL(`../../../../${file}`, import.meta.url));
const demo = parseFakeLlmScript(readFileSync(repo('examples/demo-llm.yaml'), 'utf8'));

/** What the offline demo provider answers to a message: the first rule whose text it contains. */
function demoReply(message: string): string {
  const rule = demo.rules.find((candidate) => {
    const wanted = candidate.match.last_message;
    return wanted !== undefined && message.toLowerCase().includes(wanted.toLowerCase());
  });
  return rule?.reply?.text ?? demo.default?.text ?? '';
}

describe('examples/workflows', () => {
  it('validates against the example mesh.yaml', async () => {
    const mesh = parseMeshConfig(readFileSync(repo('mesh.yaml'), 'utf8'));
    expect(mesh.workflows).toBe('examples/workflows');
    const loaded = await loadWorkflowFile(
      repo('examples/workflows/publish-article.yaml'),
      Object.keys(mesh.agents),
    );
    expect(loaded.definition.steps.map((step) => step.id)).toEqual([
      'research',
      'write',
      'fact_check',
      'approve',
      'publish',
    ]);
  });

  it('runs research → (write ∥ fact-check) → approve → publish on the demo provider’s answers', async () => {
    const host = await startWorkflowTestHost({
      dir: repo('examples/workflows'),
      respond: (item) => ({ text: demoReply(item.message), afterMs: 500 }),
    });
    const { id } = await host.startRun('publish-article', { topic: 'tidal power' });
    await host.advance(500);
    expect(
      host.lanes
        .running()
        .map((item) => item.agent)
        .sort(),
    ).toEqual(['researcher', 'writer']);
    await host.advance(500);
    expect(statesOf(await host.view(id))).toMatchObject({
      write: 'done',
      fact_check: 'done',
      approve: 'waiting_approval',
    });
    await host.post(`/api/workflows/runs/${id}/steps/approve/approve`, { note: 'ship it' });
    await host.advance(500);
    const run = await host.view(id);
    expect(run.state).toBe('succeeded');
    expect(host.blackboard.get('articles/published')).toMatch(/^PUBLISHED — The Sea Keeps Time/);
    expect(host.lanes.items().at(-1)?.message).toContain("Editor's note: ship it");
    expect(host.notified.at(-1)).toBe('publish-article on tidal power: publish done');
    await host.stop();
  });
});
