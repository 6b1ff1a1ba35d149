import { llmHealthAnswerSchema } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, requestJson } from '../host-connection.js';
import { blackboardAction, showCosts, showTraces } from './mesh-state.js';

/** `openlegion traces [id]`, `openlegion costs` and `openlegion blackboard list|get|set|rm`. */
export function registerMeshCommands(program: Command, kit: CommandKit): void {
  program
    .command('traces')
    .description('recent traces, or every hop of one (lanes, agents, LLM and mesh calls)')
    .argument('[id]', 'a trace id')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((id: string | undefined, options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        await showTraces(await connectToHost(options.config), kit.output, id, options.json);
        return 0;
      })(),
    );

  program
    .command('costs')
    .description(
      'LLM and web search spend per agent and model (searches as search/<provider>), today and this month, and the budgets',
    )
    .option('--agent <name>', 'one agent only (with the temporary agents it pays for)')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; agent?: string; json?: boolean }) =>
      kit.run(async () => {
        await showCosts(await connectToHost(options.config), kit.output, options.agent, options.json);
        return 0;
      })(),
    );

  program
    .command('llm')
    .description("the LLM proxy's models")
    .command('health')
    .description('each configured model: ok, or cooling down after failures (until when, and why)')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const host = await connectToHost(options.config);
        const health = await requestJson(host, 'GET', '/api/llm/health', llmHealthAnswerSchema);
        if (options.json) kit.output.out(`${JSON.stringify(health, null, 2)}\n`);
        else {
          kit.output.out(`fallback strategy: ${health.fallback_strategy}\n`);
          for (const model of health.models)
            kit.output.out(
              `  ${model.model.padEnd(36)} ${model.state}${model.cooldown_until ? ` until ${model.cooldown_until} (${model.last_failure})` : ''}\n`,
            );
        }
        return 0;
      })(),
    );

  const blackboard = program.command('blackboard').description("the mesh's shared state, as the operator");
  const actions = [
    ['list', 'entries under a prefix', '[prefix]'],
    ['get', 'one entry', '<key>'],
    ['rm', 'delete an entry', '<key>'],
  ] as const;
  for (const [action, description, argument] of actions) {
    blackboard
      .command(action)
      .description(description)
      .argument(argument)
      .addOption(kit.configOption())
      .action((key: string | undefined, options: { config: string }) =>
        kit.run(async () => {
          await blackboardAction(await connectToHost(options.config), kit.output, action, key ?? '');
          return 0;
        })(),
      );
  }
  blackboard
    .command('set')
    .description('write an entry (JSON, or plain text kept as a string)')
    .argument('<key>')
    .argument('<value>')
    .addOption(kit.configOption())
    .action((key: string, value: string, options: { config: string }) =>
      kit.run(async () => {
        await blackboardAction(await connectToHost(options.config), kit.output, 'set', key, value);
        return 0;
      })(),
    );
}
