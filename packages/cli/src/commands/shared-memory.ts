import {
  OpenLegionError,
  SHARED_MEMORY_API_PATH,
  sharedMemoryListAnswerSchema,
  sharedMemorySaveAnswerSchema,
  sharedMemorySearchAnswerSchema,
} from '@openlegion/protocol';
import type { CommandKit } from '../command-kit.js';
import { type HostConnection, requestDone, requestJson } from '../host-connection.js';

export interface SharedMemoryCall {
  host: HostConnection;
  kit: CommandKit;
  scope: string;
  args: string[];
  limit: number;
}

/**
 * `openlegion memory global|squad:NAME search|list|save|delete`: the mesh's shared scopes, kept by
 * the host (`/api/memory/SCOPE/...`). The operator reads and writes every scope.
 */
export const SHARED_MEMORY_ACTIONS: Record<string, (call: SharedMemoryCall) => Promise<number>> = {
  async search({ host, kit, scope, args, limit }) {
    if (args.length === 0)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `search needs a query: openlegion memory ${scope} search WORDS`,
      );
    const body = { query: args.join(' '), limit: Math.min(limit, 20) };
    const found = await requestJson(
      host,
      'POST',
      route(scope, 'search'),
      sharedMemorySearchAnswerSchema,
      body,
    );
    for (const { score, item } of found.hits)
      kit.output.out(
        `#${item.id}  ${score.toFixed(3)}  [${item.category}]  ${writer(item.writer)}  ${item.abstract}\n`,
      );
    if (found.hits.length === 0) kit.output.out('nothing found\n');
    return 0;
  },
  async list({ host, kit, scope, limit }) {
    const { items } = await requestJson(
      host,
      'GET',
      route(scope, `items?limit=${limit}`),
      sharedMemoryListAnswerSchema,
    );
    for (const item of items)
      kit.output.out(`#${item.id}  [${item.category}]  ${writer(item.writer)}  ${item.abstract}\n`);
    if (items.length === 0) kit.output.out('no items\n');
    return 0;
  },
  async save({ host, kit, scope, args }) {
    if (args.length === 0)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `save needs the fact: openlegion memory ${scope} save WORDS`,
      );
    const saved = await requestJson(host, 'POST', route(scope, 'items'), sharedMemorySaveAnswerSchema, {
      content: args.join(' '),
    });
    kit.output.out(`${saved.action}${saved.id !== null ? ` #${saved.id}` : ''}: ${saved.reason}\n`);
    return 0;
  },
  async delete({ host, kit, scope, args }) {
    const id = args[0];
    if (!id)
      throw new OpenLegionError(
        'REQUEST_INVALID',
        `delete needs an item id: openlegion memory ${scope} delete 42`,
      );
    await requestDone(host, 'DELETE', route(scope, `items/${encodeURIComponent(id)}`));
    kit.output.out(`#${id} deleted\n`);
    return 0;
  },
};

function route(scope: string, path: string): string {
  return `${SHARED_MEMORY_API_PATH}/${encodeURIComponent(scope)}/${path}`;
}

function writer(name: string | null): string {
  return name === null ? 'by the operator' : `by ${name}`;
}
