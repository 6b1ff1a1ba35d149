import { agentRestartAnswerSchema } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, requestJson } from '../host-connection.js';

/** `openlegion restart <agent>`: restart one agent (also recovers one the health monitor gave up on). */
export function registerRestartCommand(program: Command, kit: CommandKit): void {
  program
    .command('restart')
    .description('restart an agent, e.g. one marked failed after too many crashes')
    .argument('<agent>', 'agent name')
    .addOption(kit.configOption())
    .action((agent: string, options: { config: string }) =>
      kit.run(async () => {
        const host = await connectToHost(options.config);
        kit.output.out(`restarting ${agent}…\n`);
        const answer = await requestJson(
          host,
          'POST',
          `/api/agents/${encodeURIComponent(agent)}/restart`,
          agentRestartAnswerSchema,
        );
        kit.output.out(`${agent}: ${answer.agent?.state ?? 'unknown'}\n`);
        return answer.agent?.state === 'ready' ? 0 : 1;
      })(),
    );
}
