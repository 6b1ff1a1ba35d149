import type { AgentTool, ToolLoading } from '@openlegion/protocol';
import type { StoredMessage } from '../conversation-store.js';
import { createToolSearchTool } from './tool-search-tool.js';

/**
 * The tools whose schemas every call carries when tools load on demand: what most turns need
 * (files, commands, the web, memory, messaging) and `skill_view`. The rest cost ~4,700 tokens
 * a call and are loaded by `tool_search` when wanted. `grep_files` is left out to keep the core
 * under 2,000 tokens with `tool_search` (bench tool-tokens): `run_command` greps as well, and a
 * call to it by name still runs.
 */
export const CORE_TOOL_NAMES: readonly string[] = [
  'read_file',
  'write_file',
  'edit_file',
  'list_files',
  'run_command',
  'web_fetch',
  'web_search',
  'memory_search',
  'memory_save',
  'message_agent',
  'skill_view',
];

/** The tools of one turn: what the model may call, and what each call offers it. */
export interface TurnToolset {
  /** Every tool the model may call this turn; one it has not loaded yet is run all the same. */
  permitted: ReadonlyMap<string, AgentTool>;
  /** The names every call offers, whatever was loaded: what the system prompt lists, so it stays the same. */
  always: readonly string[];
  /** The tools whose schemas the next call carries: a stable prefix, then loaded ones in load order. */
  offered(): readonly AgentTool[];
  /** A permitted tool the model called: it stays loaded for the rest of the conversation. */
  used(name: string): void;
}

/**
 * Which tools each conversation has loaded. Kept in memory, and rebuilt from the tool calls in a
 * conversation's history after a restart, so what the model used before is offered again.
 */
export class ToolLoader {
  readonly #loaded = new Map<string, string[]>();
  /** Conversations remembered; the oldest is forgotten (and rebuilt from its history if it comes back). */
  static readonly MAX_CONVERSATIONS = 1_000;

  /**
   * The toolset of a turn. `pinned` (the names of a mesh.yaml `tools` list) are always offered;
   * with `all` every permitted tool is, and there is no `tool_search`.
   */
  toolset(input: {
    conversationId: string;
    permitted: readonly AgentTool[];
    pinned: readonly string[];
    mode: ToolLoading;
    history: readonly StoredMessage[];
  }): TurnToolset {
    const permitted = new Map(input.permitted.map((tool) => [tool.name, tool]));
    if (input.mode === 'all') {
      const all = input.permitted.map((tool) => tool.name);
      return { permitted, always: all, offered: () => input.permitted, used: () => {} };
    }
    const always = new Set([...CORE_TOOL_NAMES, ...input.pinned]);
    const stable = input.permitted.filter((tool) => always.has(tool.name));
    const onDemand = input.permitted.filter((tool) => !always.has(tool.name));
    const names = stable.map((tool) => tool.name);
    if (onDemand.length === 0) return { permitted, always: names, offered: () => stable, used: () => {} };
    const loaded = this.#loadedOf(input.conversationId, input.history, onDemand);
    const loadable = new Set(onDemand.map((tool) => tool.name));
    const load = (name: string) => {
      if (loadable.has(name) && !loaded.includes(name)) loaded.push(name);
    };
    const search = createToolSearchTool({ tools: onDemand, isLoaded: (name) => loaded.includes(name), load });
    permitted.set(search.name, search as AgentTool);
    return {
      permitted,
      always: [...names, search.name],
      offered: () => [...stable, search as AgentTool, ...loaded.flatMap((name) => permitted.get(name) ?? [])],
      used: load,
    };
  }

  #loadedOf(
    conversationId: string,
    history: readonly StoredMessage[],
    onDemand: readonly AgentTool[],
  ): string[] {
    let loaded = this.#loaded.get(conversationId);
    if (loaded === undefined) {
      const names = new Set(onDemand.map((tool) => tool.name));
      loaded = [];
      for (const message of history) {
        if (message.role !== 'assistant' || !message.tool_calls) continue;
        for (const call of message.tool_calls) {
          const name = call.function.name;
          if (names.has(name) && !loaded.includes(name)) loaded.push(name);
        }
      }
      this.#loaded.set(conversationId, loaded);
      if (this.#loaded.size > ToolLoader.MAX_CONVERSATIONS) {
        const oldest = this.#loaded.keys().next().value;
        if (oldest !== undefined) this.#loaded.delete(oldest);
      }
    }
    return loaded;
  }
}
