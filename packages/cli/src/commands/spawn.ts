import { type SpawnedAgent, spawnedAgentAnswerSchema, spawnedAgentsSchema } from '@openlegion/protocol';
import { type Command, InvalidArgumentError } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, requestJson } from '../host-connection.js';

/** How long `openlegion spawn` waits for the answer unless told: a short task's time. */
const DEFAULT_WAIT_S = 300;

/**
 * `openlegion spawn TEMPLATE TASK`: a temporary agent from a template of mesh.yaml, as the operator
 * (no permission, the fleet's cap only); waits for its answer and prints it. `openlegion spawn
 * --list` shows the temporary agents of the last week.
 */
export function registerSpawnCommand(program: Command, kit: CommandKit): void {
  program
    .command('spawn')
    .description('start a temporary agent from a template with a task, and print its answer')
    .argument('[template]', 'a template under templates: in mesh.yaml')
    .argument('[task...]', 'the task (the words are joined)')
    .option('--wait <seconds>', 'how long to wait for the answer (0: do not wait)', seconds, DEFAULT_WAIT_S)
    .option('--ttl <seconds>', 'remove it after this long (default: limits.temporary_agent_ttl_s)', seconds)
    .option(
      '--squad <name>',
      "a squad whose memory it starts with and adds its lessons to (default: the template's)",
    )
    .option('--list', 'list the temporary agents (running, and ended in the last week)')
    .addOption(kit.configOption())
    .action(
      (
        template: string | undefined,
        words: string[],
        options: { config: string; wait: number; ttl?: number; squad?: string; list?: boolean },
      ) =>
        kit.run(async () => {
          const host = await connectToHost(options.config);
          if (options.list) {
            const { agents } = await requestJson(host, 'GET', '/api/spawn', spawnedAgentsSchema);
            kit.output.out(formatSpawned(agents));
            return 0;
          }
          if (!template || words.length === 0) throw new InvalidArgumentError('give a template and a task');
          const body = {
            template,
            task: words.join(' '),
            ...(options.ttl !== undefined ? { ttl_s: options.ttl } : {}),
            ...(options.squad !== undefined ? { squad: options.squad } : {}),
            ...(options.wait > 0 ? { wait_s: options.wait } : {}),
          };
          const { agent } = await host.client.call(
            // The host holds the call while it waits; give the answer a moment more.
            { method: 'POST', path: '/api/spawn', body, timeoutMs: (options.wait + 30) * 1000 },
            spawnedAgentAnswerSchema,
          );
          if (agent.ended_at === null) {
            kit.output.out(`${agent.name} started; see it with: openlegion spawn --list\n`);
            return 0;
          }
          if (agent.state !== 'done') {
            kit.output.err(`${agent.name} ${agent.state}: ${agent.result ?? ''}\n`);
            return 1;
          }
          kit.output.out(`${agent.result ?? ''}\n`);
          return 0;
        })(),
    );
}

function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('a whole number of seconds');
  return parsed;
}

/** One line per temporary agent: name, state, spawner, its squad if any, when it started. */
export function formatSpawned(agents: readonly SpawnedAgent[]): string {
  if (agents.length === 0) return 'no temporary agents\n';
  return agents
    .map(
      (agent) =>
        `${agent.name}  ${agent.state}  by ${agent.spawner ?? agent.origin}${agent.squad ? `  squad ${agent.squad}` : ''}  started ${agent.created_at.slice(0, 19)}Z\n`,
    )
    .join('');
}
