import {
  distillLessons,
  episodeSessions,
  formatSquadMemory,
  SQUAD_LAYER_BUDGETS,
  type SquadLayer,
} from '@openlegion/memory';
import {
  OpenLegionError,
  planSquadCompression,
  SHARED_MEMORY_API_PATH,
  type SharedMemoryItem,
  sharedMemoryListAnswerSchema,
  sharedMemoryScopesAnswerSchema,
  squadMemoryScope,
} from '@openlegion/protocol';
import type { CommandKit } from '../command-kit.js';
import { type HostConnection, requestDone, requestJson } from '../host-connection.js';

export interface SquadMemoryCall {
  host: HostConnection;
  kit: CommandKit;
  args: string[];
  options: { role?: string; task?: string; days?: string; keepProgram?: boolean };
}

const LAYERS = Object.keys(SQUAD_LAYER_BUDGETS) as SquadLayer[];

/**
 * `openlegion memory squads list|read|write|distill|compress|flush|stats` (seed 003): the squads'
 * memory in the host's `squad:NAME` scopes, by layer (process, program, episodic).
 */
export const SQUAD_MEMORY_ACTIONS: Record<string, (call: SquadMemoryCall) => Promise<number>> = {
  async list({ host, kit }) {
    const squads = await squadScopes(host);
    if (squads.length === 0) kit.output.out('no squad memory yet\n');
    for (const { scope, items, categories } of squads)
      kit.output.out(`${scope.slice('squad:'.length)}  ${items} items  ${layerCounts(categories)}\n`);
    return 0;
  },
  async stats({ host, kit }) {
    for (const { scope } of await squadScopes(host)) {
      const squad = scope.slice('squad:'.length);
      const items = await readSquad(host, squad);
      const block = formatSquadMemory(squad, items, { role: '', task: '' });
      kit.output.out(
        `${squad}  ${layerCounts(countBy(items))}  ${episodeSessions(items)} sessions  injected ${block.tokens} of ${total()} tokens${block.leftOut > 0 ? `, ${block.leftOut} over budget` : ''}\n`,
      );
    }
    return 0;
  },
  async read({ host, kit, args, options }) {
    const squad = squadArg(args, 'read');
    const block = formatSquadMemory(squad, await readSquad(host, squad), {
      role: options.role ?? '',
      task: options.task ?? '',
    });
    kit.output.out(block.text === '' ? `squad ${squad} has no memory yet\n` : `${block.text}\n`);
    kit.output.out(
      `(${block.tokens} of ${total()} tokens${block.leftOut > 0 ? `; ${block.leftOut} entries over budget left out` : ''})\n`,
    );
    return 0;
  },
  async write({ host, kit, args }) {
    const squad = squadArg(args, 'write');
    const layer = args[1] as SquadLayer;
    const text = args.slice(2).join(' ').trim();
    if (!LAYERS.includes(layer) || text === '')
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `write needs a layer (${LAYERS.join(', ')}) and the text: openlegion memory squads write ${squad} process "We review in pairs."`,
      );
    await save(host, squad, layer, text);
    kit.output.out(`written to ${squad} ${layer}\n`);
    return 0;
  },
  async distill({ host, kit, args }) {
    const squad = squadArg(args, 'distill');
    const lessons = distillLessons(await readSquad(host, squad));
    for (const lesson of lessons) await save(host, squad, 'program', lesson);
    kit.output.out(`${lessons.length} lessons distilled into ${squad} program memory\n`);
    return 0;
  },
  async compress({ host, kit, args, options }) {
    const squad = squadArg(args, 'compress');
    const days = Number(options.days ?? '7');
    if (!Number.isFinite(days) || days < 0)
      throw new OpenLegionError('REQUEST_INVALID', '--days takes a number of days');
    const { merges, sessions } = planSquadCompression(await readSquad(host, squad), Date.now(), days);
    let compressed = 0;
    for (const merge of merges) {
      await save(host, squad, 'episodic', merge.content);
      for (const id of merge.ids) await requestDone(host, 'DELETE', itemPath(squad, id));
      compressed += merge.ids.length;
    }
    kit.output.out(
      `${compressed} episodic entries older than ${days} days compressed into ${sessions} lines\n`,
    );
    return 0;
  },
  async flush({ host, kit, args, options }) {
    const squad = squadArg(args, 'flush');
    const layers: SquadLayer[] = options.keepProgram ? ['episodic'] : ['episodic', 'program'];
    const doomed = (await readSquad(host, squad)).filter((item) =>
      layers.includes(item.category as SquadLayer),
    );
    for (const item of doomed) await requestDone(host, 'DELETE', itemPath(squad, item.id));
    kit.output.out(
      `${doomed.length} entries of ${squad} (${layers.join(', ')}) deleted; process memory kept\n`,
    );
    return 0;
  },
};

async function squadScopes(host: HostConnection) {
  const { scopes } = await requestJson(host, 'GET', SHARED_MEMORY_API_PATH, sharedMemoryScopesAnswerSchema);
  return scopes.filter(({ scope }) => scope.startsWith('squad:'));
}

async function readSquad(host: HostConnection, squad: string): Promise<SharedMemoryItem[]> {
  const path = `${SHARED_MEMORY_API_PATH}/${encodeURIComponent(squadMemoryScope(squad))}/items?limit=1000`;
  return (await requestJson(host, 'GET', path, sharedMemoryListAnswerSchema)).items;
}

async function save(host: HostConnection, squad: string, layer: SquadLayer, content: string): Promise<void> {
  await requestDone(
    host,
    'POST',
    `${SHARED_MEMORY_API_PATH}/${encodeURIComponent(squadMemoryScope(squad))}/items`,
    {
      content,
      category: layer,
    },
  );
}

function itemPath(squad: string, id: number): string {
  return `${SHARED_MEMORY_API_PATH}/${encodeURIComponent(squadMemoryScope(squad))}/items/${id}`;
}

function squadArg(args: string[], action: string): string {
  const squad = args[0];
  if (!squad || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(squad))
    throw new OpenLegionError(
      'REQUEST_INVALID',
      `${action} needs a squad name: openlegion memory squads ${action} NAME`,
    );
  return squad;
}

function countBy(items: readonly SharedMemoryItem[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item.category] = (counts[item.category] ?? 0) + 1;
  return counts;
}

function layerCounts(categories: Record<string, number>): string {
  return LAYERS.map((layer) => `${layer} ${categories[layer] ?? 0}`).join(', ');
}

function total(): number {
  return LAYERS.reduce((sum, layer) => sum + SQUAD_LAYER_BUDGETS[layer], 0);
}
