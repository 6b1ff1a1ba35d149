import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatConfigProblem } from '../../config/index.js';
import { loadWorkflowFile, parseWorkflowFile, workflowProblems } from './workflow-file.js';

const AGENTS = ['researcher', 'writer'];

/** The located problems of a file, as `line:col field: message`. */
function problemsOf(text: string): string[] {
  try {
    parseWorkflowFile(text, 'w.yaml', AGENTS);
  } catch (error) {
    const problems = workflowProblems(error);
    if (!problems) throw error;
    return problems.map((problem) => formatConfigProblem(problem).replace(/^w\.yaml:/, ''));
  }
  throw new Error('expected problems');
}

describe('workflow files', () => {
  it('reads a valid file, freezes it and fingerprints its text', () => {
    const text = `
name: publish
inputs:
  topic: { type: string }
steps:
  - id: research
    agent: researcher
    task: Research \${inputs.topic}
  - id: write
    agent: writer
    task: Write from \${steps.research.output}
    depends_on: research
`;
    const loaded = parseWorkflowFile(text, 'w.yaml', AGENTS);
    expect(loaded.definition.steps.map((step) => step.id)).toEqual(['research', 'write']);
    expect(Object.isFrozen(loaded.definition.steps[1]?.depends_on)).toBe(true);
    expect(loaded.version).toMatch(/^[0-9a-f]{64}$/);
    expect(parseWorkflowFile(`${text}\n`, 'w.yaml', AGENTS).version).not.toBe(loaded.version);
  });

  it('reports every problem at once with line and column: cycle, agents, references, expressions, inputs', () => {
    const text = `name: broken
inputs:
  topic: { type: string }
trigger: { cron: "every 1h" }
steps:
  - id: a
    agent: researcher
    task: "\${inputs.subject} then \${steps.c.output}"
    depends_on: [c]
  - id: b
    agent: editor
    task: go
    depends_on: [a, ghost]
    when: steps.a.output contains
  - id: c
    agent: writer
    task: "\${steps.b.outcome}"
    depends_on: b
    on_failure: { fallback: nobody }
  - id: d
    agent: writer
    task: "\${item} of \${steps.a.output}"
    when: "steps.a.output = 'x'"
`;
    expect(problemsOf(text)).toEqual([
      '3:10 inputs.topic: a cron-triggered run is given no inputs: give "topic" a default',
      '8:11 steps.0.task: inputs.subject: no input "subject" is declared (inputs: topic)',
      '9:17 steps.0.depends_on: the steps wait for each other in a cycle: a → b → c → a',
      '11:12 steps.1.agent: no agent "editor" in mesh.yaml (agents: researcher, writer)',
      '13:21 steps.1.depends_on.1: no step "ghost" (steps: a, b, c, d)',
      '14:11 steps.1.when: expected a value, found the end (at character 24)',
      '17:11 steps.2.task: steps.b.outcome: a step has output and status, not "outcome"',
      '19:29 steps.2.on_failure.fallback: no agent "nobody" in mesh.yaml (agents: researcher, writer)',
      '22:11 steps.3.task: item: item and index exist only in the task of a for_each step',
      '22:11 steps.3.task: steps.a.output: step "a" has not run yet when "d" does; add it to depends_on',
      '23:11 steps.3.when: unexpected "=" (compare with ==) (at character 16)',
    ]);
  });

  it('names a cycle of one step and a duplicate id', () => {
    expect(
      problemsOf(`name: w
steps:
  - { id: a, agent: writer, task: t, depends_on: a }
  - { id: a, agent: writer, task: t }
`),
    ).toEqual([
      '3:50 steps.0.depends_on: the steps wait for each other in a cycle: a → a',
      '4:11 steps.1.id: step id "a" is used twice',
    ]);
  });

  it('reports what the schema refuses together with cycles, agents and references in the rest', () => {
    expect(
      problemsOf(`name: w
inputs:
  topic: { type: text }
steps:
  - { id: a, agent: writer, task: "\${inputs.topic}", retries: 2, depends_on: b }
  - { id: b, agent: ghost, task: "\${inputs.nope}", depends_on: a }
`),
    ).toEqual([
      '3:18 inputs.topic.type: Invalid option: expected one of "string"|"number"|"boolean"|"list"|"object"',
      '5:54 steps.0.retries: unknown field "retries"',
      '5:78 steps.0.depends_on: the steps wait for each other in a cycle: a → b → a',
      '6:21 steps.1.agent: no agent "ghost" in mesh.yaml (agents: researcher, writer)',
      '6:34 steps.1.task: inputs.nope: no input "nope" is declared (inputs: topic)',
    ]);
  });

  it('reports schema problems and YAML syntax errors with their position', () => {
    expect(problemsOf('name: w\nsteps:\n  - id: a\n    agent: writer\n    tsak: t\n')).toEqual([
      '3:5 steps.0.task: a step needs a task (or is an approval gate)',
      '5:5 steps.0.tsak: unknown field "tsak"',
    ]);
    expect(problemsOf('name: w\nsteps: [\n')[0]).toMatch(/^3:1 /);
  });

  it('reads a file from disk, and names a missing one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'wf-'));
    const file = path.join(dir, 'w.yaml');
    await writeFile(file, 'name: w\nsteps: [{ id: a, requires_approval: true }]\n');
    expect((await loadWorkflowFile(file, AGENTS)).file).toBe(file);
    await expect(loadWorkflowFile(path.join(dir, 'nope.yaml'), AGENTS)).rejects.toMatchObject({
      code: 'WORKFLOW_UNKNOWN',
    });
  });
});
