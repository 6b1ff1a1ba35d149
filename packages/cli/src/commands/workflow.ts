import { formatConfigProblem, loadMeshConfig } from '@openlegion/host/config';
// Workflow files are checked without loading the host (its own lean entry, like /config).
import { loadWorkflowFile, workflowProblems } from '@openlegion/host/workflow-files';
import {
  type WorkflowListing,
  type WorkflowRunView,
  workflowListingsAnswerSchema,
  workflowRunAnswerSchema,
  workflowRunsAnswerSchema,
} from '@openlegion/protocol';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliOutput } from '../cli-output.js';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, type HostConnection, requestJson } from '../host-connection.js';
import { drawRun } from './workflow-dag-text.js';

/** A call answered with one workflow run (`{ run }`): the run. */
export async function requestRun(
  host: HostConnection,
  method: 'GET' | 'POST',
  route: string,
  body?: unknown,
): Promise<WorkflowRunView> {
  return (await requestJson(host, method, route, workflowRunAnswerSchema, body)).run;
}

/** `openlegion workflow validate|list|run|status|cancel|approve|reject`: DAG workflow files and their runs. */
export function registerWorkflowCommands(program: Command, kit: CommandKit): void {
  const workflow = program
    .command('workflow')
    .description('DAG workflow files: validate, run and follow them');
  const json = (value: unknown) => kit.output.out(`${JSON.stringify(value, null, 2)}\n`);
  const host = (config: string) => connectToHost(config);

  workflow
    .command('validate')
    .description(
      'check a workflow file against mesh.yaml (no host needed); problems as file:line:col field: message',
    )
    .argument('<file>', 'the workflow file')
    .addOption(kit.configOption())
    .action((file: string, options: { config: string }) =>
      kit.run(() => validateWorkflow(file, options.config, kit.output))(),
    );

  workflow
    .command('list')
    .description('the workflow files of the running mesh, with their problems')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const connection = await host(options.config);
        const { workflows } = await requestJson(
          connection,
          'GET',
          '/api/workflows',
          workflowListingsAnswerSchema,
        );
        if (options.json) json(workflows);
        else printListing(workflows, kit.output);
        return 0;
      })(),
    );

  workflow
    .command('run')
    .description('start a run of a workflow')
    .argument('<name>', 'the workflow name')
    .option('-i, --input <key=value>', 'an input (repeatable)', collectInput, {})
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((name: string, options: { config: string; input: Record<string, string>; json?: boolean }) =>
      kit.run(async () => {
        const route = `/api/workflows/${encodeURIComponent(name)}/runs`;
        const run = await requestRun(await host(options.config), 'POST', route, { inputs: options.input });
        if (options.json) json(run);
        else kit.output.out(`started ${run.id}\n${drawRun(run, Date.now())}`);
        return 0;
      })(),
    );

  workflow
    .command('status')
    .description('one run drawn as its DAG, or the recent runs')
    .argument('[run]', 'a run id (default: list the recent runs)')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((runId: string | undefined, options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const connection = await host(options.config);
        if (runId) {
          const run = await requestRun(connection, 'GET', `/api/workflows/runs/${encodeURIComponent(runId)}`);
          if (options.json) json(run);
          else kit.output.out(drawRun(run, Date.now()));
          return 0;
        }
        const { runs } = await requestJson(
          connection,
          'GET',
          '/api/workflows/runs',
          workflowRunsAnswerSchema,
        );
        if (options.json) json(runs);
        else if (runs.length === 0) kit.output.out('no workflow runs yet\n');
        else
          for (const run of runs)
            kit.output.out(
              `${run.id}  ${run.workflow}  ${run.state}  ${run.trigger}  ${new Date(run.created_at).toISOString()}${run.error ? `  ${run.error.code}` : ''}\n`,
            );
        return 0;
      })(),
    );

  workflow
    .command('cancel')
    .description('cancel a run (running steps are cancelled in their lanes)')
    .argument('<run>', 'the run id')
    .addOption(kit.configOption())
    .action((runId: string, options: { config: string }) =>
      kit.run(() =>
        runAction(
          host(options.config),
          `/api/workflows/runs/${encodeURIComponent(runId)}/cancel`,
          undefined,
          kit.output,
        ),
      )(),
    );

  for (const decision of ['approve', 'reject'] as const) {
    workflow
      .command(decision)
      .description(
        decision === 'approve'
          ? 'let a step that waits for approval run'
          : 'refuse a step that waits for approval; the run stops',
      )
      .argument('<run>', 'the run id')
      .argument('<step>', 'the step id')
      .option('--note <text>', decision === 'approve' ? 'a note (an approval gate outputs it)' : 'why')
      .addOption(kit.configOption())
      .action((runId: string, step: string, options: { config: string; note?: string }) =>
        kit.run(() =>
          runAction(
            host(options.config),
            `/api/workflows/runs/${encodeURIComponent(runId)}/steps/${encodeURIComponent(step)}/${decision}`,
            options.note === undefined ? {} : { note: options.note },
            kit.output,
          ),
        )(),
      );
  }
}

/** `openlegion workflow validate FILE`: the mesh's agents come from mesh.yaml; no host is asked. */
export async function validateWorkflow(file: string, config: string, output: CliOutput): Promise<number> {
  const { config: mesh } = await loadMeshConfig(config);
  try {
    const { definition } = await loadWorkflowFile(file, Object.keys(mesh.agents));
    output.out(`${file}: ok (workflow ${definition.name}, ${definition.steps.length} steps)\n`);
    return 0;
  } catch (error) {
    const problems = workflowProblems(error);
    if (!problems) throw error;
    for (const problem of problems) output.err(`${formatConfigProblem(problem)}\n`);
    output.err(`${file}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}\n`);
    return 1;
  }
}

async function runAction(
  connection: Promise<HostConnection>,
  route: string,
  body: unknown,
  output: CliOutput,
): Promise<number> {
  output.out(drawRun(await requestRun(await connection, 'POST', route, body), Date.now()));
  return 0;
}

export function printListing(workflows: WorkflowListing[], output: CliOutput): void {
  if (workflows.length === 0) {
    output.out('no workflow files (mesh.yaml: workflows: <folder>)\n');
    return;
  }
  for (const workflow of workflows) {
    const inputs = workflow.inputs
      .map((input) => `${input.name}${input.required ? '' : '?'}:${input.type}`)
      .join(' ');
    output.out(
      `${workflow.name}  ${workflow.steps} steps  ${workflow.trigger}${inputs ? `  inputs ${inputs}` : ''}  (${workflow.file})\n`,
    );
    if (workflow.description) output.out(`    ${workflow.description}\n`);
    for (const problem of workflow.problems) output.out(`    ✘ ${problem}\n`);
  }
}

/** `--input topic=tides --input n=3` → `{ topic: 'tides', n: '3' }` (the host reads each as its declared type). */
export function collectInput(pair: string, inputs: Record<string, string>): Record<string, string> {
  const at = pair.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`use key=value, not "${pair}"`);
  return { ...inputs, [pair.slice(0, at)]: pair.slice(at + 1) };
}
