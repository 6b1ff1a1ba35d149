import { readFile } from 'node:fs/promises';
import { parseAnswer } from '@openlegion/infra/http';
import {
  INSTRUCTION_FILES,
  type InstructionFile,
  instructionsStoredAnswerSchema,
  OpenLegionError,
} from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, errorFromResponse } from '../host-connection.js';

interface InstructionsOptions {
  config: string;
  set?: string;
  fromWorkspace?: boolean;
}

/**
 * `openlegion instructions <agent> AGENTS.md|SOUL.md [--set FILE|-] [--from-workspace]`: the
 * operator's instructions of an agent, held by the host where the agent cannot change them.
 */
export function registerInstructionsCommand(program: Command, kit: CommandKit): void {
  program
    .command('instructions')
    .description(
      "print or set an agent's AGENTS.md or SOUL.md (held by the host; the agent cannot change them)",
    )
    .argument('<agent>', 'agent name')
    .argument('<file>', INSTRUCTION_FILES.join(' or '))
    .addOption(kit.configOption())
    .option('--set <file>', 'store this file (- for stdin) as the new text; the next turn uses it')
    .option(
      '--from-workspace',
      "print the agent's workspace copy instead (no longer read: to keep an edit made before the host held it)",
    )
    .action((agent: string, name: string, options: InstructionsOptions) =>
      kit.run(async () => {
        const file = instructionFile(name);
        if (options.set !== undefined && options.fromWorkspace) {
          throw new OpenLegionError('REQUEST_INVALID', '--set and --from-workspace go separately', {
            details: { field: '--set' },
          });
        }
        const host = await connectToHost(options.config);
        const route = `/api/agents/${encodeURIComponent(agent)}/workspace/${file}`;
        if (options.set === undefined) {
          const response = await host.request(
            'GET',
            options.fromWorkspace ? `${route}?from=workspace` : route,
          );
          if (!response.ok) throw await errorFromResponse(response);
          kit.output.out(await response.text());
          return 0;
        }
        const text = options.set === '-' ? await readStdin() : await readFile(options.set, 'utf8');
        const response = await fetch(`${host.url}${route}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${host.token}`, 'content-type': 'text/markdown; charset=utf-8' },
          body: text,
        });
        if (!response.ok) throw await errorFromResponse(response);
        const stored = parseAnswer(instructionsStoredAnswerSchema, await response.json(), `PUT ${route}`);
        kit.output.err(`${file} of ${agent} stored (${stored.bytes} bytes, version ${stored.version})\n`);
        return 0;
      })(),
    );
}

function instructionFile(name: string): InstructionFile {
  const file = INSTRUCTION_FILES.find((known) => known.toLowerCase() === name.toLowerCase());
  if (!file) {
    throw new OpenLegionError('REQUEST_INVALID', `"${name}" is not ${INSTRUCTION_FILES.join(' or ')}`, {
      details: { field: 'file' },
    });
  }
  return file;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}
