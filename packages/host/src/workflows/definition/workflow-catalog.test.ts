import type { WorkflowListing } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { startWorkflowTestHost, workflowDir } from '../../../test/workflow-test-host.js';
import { parseMeshConfig } from '../../config/index.js';
import { MAX_WORKFLOW_FILE_BYTES } from './workflow-file.js';

const GOOD = `
name: good
trigger: { topic: "news.*" }
steps: [{ id: read, agent: researcher, task: "read \${trigger.topic}" }]
`;

/** Nine levels of nine aliases each: a few lines that expand to 9^9 nodes ("billion laughs"). */
const ALIAS_BOMB = [
  'name: bomb',
  'a0: &a0 [x, x, x, x, x, x, x, x, x]',
  ...Array.from({ length: 8 }, (_, level) => {
    const alias = `*a${level}`;
    return `a${level + 1}: &a${level + 1} [${Array.from({ length: 9 }, () => alias).join(', ')}]`;
  }),
  'steps: [{ id: s, agent: researcher, task: "*a8" }]',
  '',
].join('\n');

const HUGE = `name: huge\nsteps: [{ id: s, agent: researcher, task: "${'x'.repeat(MAX_WORKFLOW_FILE_BYTES)}" }]\n`;

describe('a workflow folder with broken files', () => {
  it('lists, loads and triggers the good workflow and reports each broken file as its own problem', async () => {
    const host = await startWorkflowTestHost({
      dir: workflowDir({ 'good.yaml': GOOD, 'bomb.yaml': ALIAS_BOMB, 'huge.yaml': HUGE }),
    });
    const listed = await host.app.inject({ url: '/api/workflows', headers: host.operatorAuth });
    expect(listed.statusCode).toBe(200);
    const byName = Object.fromEntries(
      (listed.json().workflows as WorkflowListing[]).map((workflow) => [workflow.name, workflow.problems]),
    );
    expect(byName).toEqual({
      good: [],
      bomb: [
        expect.stringMatching(
          /bomb\.yaml:1:1 cannot read the document: Excessive alias count indicates a resource exhaustion attack$/,
        ),
      ],
      huge: [
        expect.stringMatching(
          /huge\.yaml:1:1 the file is 262203 bytes; a workflow file is at most 262144 \(256 KiB\)$/,
        ),
      ],
    });
    expect(host.warnings).toEqual([
      expect.stringMatching(
        /^workflow file not loaded: .*bomb\.yaml:1:1 cannot read the document: Excessive alias/,
      ),
      expect.stringMatching(/^workflow file not loaded: .*huge\.yaml:1:1 the file is 262203 bytes/),
    ]);

    const run = await host.startRun('good');
    expect(await host.view(run.id)).toMatchObject({ workflow: 'good', state: 'succeeded' });
    host.events.publish('news.ai', {}, 'researcher');
    await host.settle();
    expect(host.lanes.items().map((item) => item.message)).toEqual(['read ', 'read news.ai']);

    const broken = await host.post('/api/workflows/bomb/runs');
    expect(broken.json().error).toMatchObject({
      code: 'WORKFLOW_INVALID',
      message: expect.stringMatching(
        /bomb\.yaml: 1 problem\n.*bomb\.yaml:1:1 cannot read the document: Excessive alias/,
      ),
    });
    await host.stop();
  });

  it('reports an alias bomb in mesh.yaml as CONFIG_INVALID at the file', () => {
    const text = `llm: { providers: { openai: {} } }\nagents: {}\n${ALIAS_BOMB.replace('name: bomb', 'x: 1').replace(/steps:.*\n/, '')}`;
    expect(() => parseMeshConfig(text, 'mesh.yaml')).toThrow(
      'mesh.yaml: 1 problem\nmesh.yaml:1:1 cannot read the document: Excessive alias count indicates a resource exhaustion attack',
    );
  });
});
