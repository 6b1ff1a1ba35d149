import { readFile, writeFile } from 'node:fs/promises';
import {
  isSharedMemoryScope,
  memoryDoctorAnswerSchema,
  memoryItemsAnswerSchema,
  memorySearchAnswerSchema,
  memoryStatsAnswerSchema,
  OpenLegionError,
} from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import {
  connectToHost,
  errorFromResponse,
  type HostConnection,
  requestDone,
  requestJson,
} from '../host-connection.js';
import { SHARED_MEMORY_ACTIONS } from './shared-memory.js';
import { SQUAD_MEMORY_ACTIONS } from './squad-memory.js';

/**
 * `openlegion memory <agent> search|list|stats|delete|export|import|doctor`: an agent's long-term
 * memory, reached through the host (which holds the agent's token). In place of the agent, a shared
 * scope (`global`, `squad:NAME`) the host keeps: `search|list|save|delete`.
 */
export function registerMemoryCommands(program: Command, kit: CommandKit): void {
  program
    .command('memory')
    .description(
      "read and manage an agent's long-term memory (search, list, stats, delete, export, import, doctor), or a shared scope's (global, squad:NAME: search, list, save, delete)",
    )
    .argument('<agent>', 'agent name, a shared scope (global, squad:NAME), or squads')
    .argument('<action>', `one of: ${Object.keys(ACTIONS).join(', ')}`)
    .argument('[args...]', 'search: the query; delete: the item id; import: a JSON lines file or -')
    .addOption(kit.configOption())
    .option('-n, --limit <n>', 'search/list: how many', '10')
    .option('--flat', 'search: all items at once instead of categories first')
    .option('--scope <scope>', 'list: only this scope (global, agent:<id>, user:<id>, ...)')
    .option('--category <category>', 'list: only this category')
    .option('-o, --out <file>', 'export: write to a file instead of stdout')
    .option('--keep-ids', 'import: keep the ids in the file (restore into an empty memory)')
    .option('--role <role>', 'squads read: the role a subagent would have')
    .option('--task <task>', 'squads read: the task a subagent would have')
    .option('--days <n>', 'squads compress: episodes older than this many days (7)')
    .option('--keep-program', 'squads flush: keep the distilled program memory')
    .action((agent: string, action: string, args: string[], options: MemoryOptions) =>
      kit.run(async () => {
        // `squads` in place of an agent: the squads' layered memory (seed 003). An agent named
        // `squads` has its own memory reached through the REPL or the host's API instead.
        if (agent === 'squads') {
          const squads = SQUAD_MEMORY_ACTIONS[action];
          if (!squads)
            throw new OpenLegionError(
              'REQUEST_INVALID',
              `no action "${action}" for squads; actions: ${Object.keys(SQUAD_MEMORY_ACTIONS).join(', ')}`,
            );
          return squads({ host: await connectToHost(options.config), kit, args, options });
        }
        if (isSharedMemoryScope(agent)) {
          const shared = SHARED_MEMORY_ACTIONS[action];
          if (!shared)
            throw new OpenLegionError(
              'REQUEST_INVALID',
              `no action "${action}" for the shared scope ${agent}; actions: ${Object.keys(SHARED_MEMORY_ACTIONS).join(', ')}`,
            );
          const host = await connectToHost(options.config);
          return shared({ host, kit, scope: agent, args, limit: Number(options.limit) });
        }
        const run = ACTIONS[action];
        if (!run) {
          throw new OpenLegionError(
            'REQUEST_INVALID',
            `no memory action "${action}"; actions: ${Object.keys(ACTIONS).join(', ')}`,
          );
        }
        const host = await connectToHost(options.config);
        return run({
          host,
          kit,
          args,
          options,
          route: (path) => `/api/agents/${encodeURIComponent(agent)}/memory/${path}`,
        });
      })(),
    );
}

interface MemoryOptions {
  config: string;
  limit: string;
  flat?: boolean;
  scope?: string;
  category?: string;
  out?: string;
  keepIds?: boolean;
  role?: string;
  task?: string;
  days?: string;
  keepProgram?: boolean;
}

interface MemoryCall {
  host: HostConnection;
  kit: CommandKit;
  args: string[];
  options: MemoryOptions;
  route: (path: string) => string;
}

async function json(response: Response): Promise<unknown> {
  if (!response.ok) throw await errorFromResponse(response);
  return response.json();
}

const print = (kit: CommandKit, value: unknown) => kit.output.out(`${JSON.stringify(value, null, 2)}\n`);

const ACTIONS: Record<string, (call: MemoryCall) => Promise<number>> = {
  async search({ host, kit, args, options, route }) {
    if (args.length === 0)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        'search needs a query: openlegion memory AGENT search WORDS',
      );
    const body = { query: args.join(' '), limit: Number(options.limit), hierarchical: !options.flat };
    const found = await requestJson(host, 'POST', route('search'), memorySearchAnswerSchema, body);
    for (const { score, item } of found.hits)
      kit.output.out(`#${item.id}  ${score.toFixed(3)}  [${item.category}]  ${item.abstract}\n`);
    kit.output.out(
      found.hits.length === 0 ? 'nothing found\n' : `(${found.strategy} search, ${found.mode})\n`,
    );
    return 0;
  },
  async list({ host, kit, options, route }) {
    const query = new URLSearchParams({ limit: options.limit });
    if (options.scope) query.set('scope', options.scope);
    if (options.category) query.set('category', options.category);
    const { items } = await requestJson(host, 'GET', route(`items?${query}`), memoryItemsAnswerSchema);
    for (const item of items)
      kit.output.out(`#${item.id}  [${item.category}] ${item.scope}  ${item.abstract}\n`);
    if (items.length === 0) kit.output.out('no items\n');
    return 0;
  },
  async stats({ host, kit, route }) {
    print(kit, await requestJson(host, 'GET', route('stats'), memoryStatsAnswerSchema));
    return 0;
  },
  async doctor({ host, kit, route }) {
    const report = await requestJson(host, 'GET', route('doctor'), memoryDoctorAnswerSchema);
    print(kit, report);
    return report.ok === false ? 1 : 0;
  },
  async delete({ host, kit, args, route }) {
    const id = args[0];
    if (!id)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        'delete needs an item id: openlegion memory AGENT delete 42',
      );
    await requestDone(host, 'DELETE', route(`items/${encodeURIComponent(id)}`));
    kit.output.out(`#${id} deleted\n`);
    return 0;
  },
  async export({ host, kit, options, route }) {
    const response = await host.request('GET', route('export'));
    if (!response.ok) throw await errorFromResponse(response);
    const text = await response.text();
    if (options.out) await writeFile(options.out, text, { mode: 0o600 });
    else kit.output.out(text);
    return 0;
  },
  async import({ host, kit, args, options, route }) {
    const file = args[0];
    if (!file)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        'import needs a file: openlegion memory AGENT import items.jsonl (or - for stdin)',
      );
    const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
    const response = await fetch(`${host.url}${route(`import?ids=${options.keepIds ? 'keep' : 'new'}`)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/x-ndjson' },
      body: text,
    });
    print(kit, await json(response));
    return 0;
  },
};

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}
