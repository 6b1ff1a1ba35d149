import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Clock } from '@openlegion/infra/clock';
import type { MemoryEngine } from '@openlegion/memory';
import type { Logger } from 'pino';
import type { ExtractedFact } from './context-state-store.js';

/** Where saved facts go: searchable memory, and the human-readable workspace files. */
export type FactSink = (
  conversationId: string,
  facts: readonly ExtractedFact[],
  signal: AbortSignal,
) => Promise<void>;

export interface FactSinkDeps {
  memory: () => MemoryEngine;
  /** The agent's workspace: facts are appended to MEMORY.md and to `memory/YYYY-MM-DD.md`. */
  workspaceDir: string;
  clock: Clock;
  logger: Logger;
}

/**
 * Facts are written three ways: into the memory engine (structured, searchable at once by
 * `memory_search`), appended to MEMORY.md (the file the user reads and edits) and to the day's log.
 * Each write stands alone: a failing one is logged and does not stop the others, since losing a
 * fact in one place is better than losing it in all three.
 */
export function createFactSink(deps: FactSinkDeps): FactSink {
  return async (conversationId, facts, signal) => {
    if (facts.length === 0) return;
    const log = deps.logger.child({ conversation: conversationId });
    const now = new Date(deps.clock.now());
    try {
      await deps.memory().save(
        facts.map((fact) => ({
          content: `${fact.key}: ${fact.value}`,
          category: fact.category,
          source: 'flush' as const,
          sourceRef: conversationId,
        })),
        { signal },
      );
    } catch (error) {
      log.error({ err: error, facts: facts.length }, 'saving flushed facts to memory failed');
    }
    const lines = facts.map(
      (fact) => `- **${oneLine(fact.key)}** (${fact.category}): ${oneLine(fact.value)}`,
    );
    const stamp = now.toISOString().slice(0, 16).replace('T', ' ');
    await appendSafely(
      join(deps.workspaceDir, 'MEMORY.md'),
      `\n## Saved from a conversation, ${stamp} UTC\n${lines.join('\n')}\n`,
      log,
    );
    await appendSafely(
      join(deps.workspaceDir, 'memory', `${now.toISOString().slice(0, 10)}.md`),
      `\n### ${stamp.slice(11)} UTC: facts saved before compacting conversation ${conversationId}\n${lines.join('\n')}\n`,
      log,
    );
  };
}

async function appendSafely(file: string, text: string, log: Logger): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, text, 'utf8');
  } catch (error) {
    log.error({ err: error, file }, 'appending flushed facts failed');
  }
}

/** Markdown list items stay one line each, whatever the model wrote. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
