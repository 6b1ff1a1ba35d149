import { lcmAnswerSchema, OpenLegionError } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, requestJson } from '../host-connection.js';

const ACTIONS = ['grep', 'describe', 'expand'] as const;

interface LcmOptions {
  config: string;
  limit: string;
  from?: string;
  conversation?: string;
}

/**
 * `openlegion lcm <agent> grep|describe|expand`: an agent's lossless context store (every message
 * of its conversations and their summaries), reached through the host like `openlegion memory`.
 */
export function registerLcmCommands(program: Command, kit: CommandKit): void {
  program
    .command('lcm')
    .description("search an agent's conversation history and its summaries: grep, describe, expand")
    .argument('<agent>', 'agent name')
    .argument('<action>', `one of: ${ACTIONS.join(', ')}`)
    .argument('[args...]', 'grep: the words; describe, expand: a summary id (S12)')
    .addOption(kit.configOption())
    .option('-n, --limit <n>', 'grep: most hits of each kind', '10')
    .option('--from <n>', 'expand: first message number to show (to page on)')
    .option('--conversation <id>', 'grep: only this conversation; expand: this conversation (with --from)')
    .action((agent: string, action: string, args: string[], options: LcmOptions) =>
      kit.run(async () => {
        const route = (path: string) => `/api/agents/${encodeURIComponent(agent)}/lcm/${path}`;
        const request = lcmRequest(action, args, options);
        const host = await connectToHost(options.config);
        const answer = await requestJson(
          host,
          request.method,
          route(request.path),
          lcmAnswerSchema,
          request.body,
        );
        kit.output.out(`${answer.text}\n`);
        return 0;
      })(),
    );
}

/** The agent route an lcm action calls. */
export function lcmRequest(
  action: string,
  args: readonly string[],
  options: Pick<LcmOptions, 'limit' | 'from' | 'conversation'>,
): { method: 'GET' | 'POST'; path: string; body?: unknown } {
  const from = options.from ? `from=${encodeURIComponent(options.from)}` : '';
  if (action === 'grep') {
    if (args.length === 0) {
      throw new OpenLegionError(
        'REQUEST_INVALID',
        'grep needs words to look for: openlegion lcm AGENT grep WORDS',
      );
    }
    const body = {
      pattern: args.join(' '),
      limit: Number(options.limit),
      ...(options.conversation ? { conversation: options.conversation } : {}),
    };
    return { method: 'POST', path: 'grep', body };
  }
  if (action === 'describe' || action === 'expand') {
    const id = args[0];
    if (action === 'expand' && !id && options.conversation) {
      const query = [`conversation=${encodeURIComponent(options.conversation)}`, from]
        .filter(Boolean)
        .join('&');
      return { method: 'GET', path: `expand?${query}` };
    }
    if (!id) {
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `${action} needs a summary id: openlegion lcm AGENT ${action} S12`,
      );
    }
    const query = action === 'expand' && from ? `?${from}` : '';
    return { method: 'GET', path: `${action}/${encodeURIComponent(id)}${query}` };
  }
  throw new OpenLegionError('REQUEST_INVALID', `no lcm action "${action}"; actions: ${ACTIONS.join(', ')}`);
}
