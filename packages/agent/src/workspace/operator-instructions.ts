import type { AgentInstructions } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { HostClient } from '../host-client.js';
import type { InstructionTexts } from './bootstrap-files.js';
import { INSTRUCTION_TEMPLATES } from './workspace-scaffold.js';

/** Where a turn gets its AGENTS.md and SOUL.md: never the workspace, which the agent can write. */
export interface InstructionSource {
  current(): Promise<InstructionTexts>;
}

/** The built-in templates alone (an agent whose host holds no copy, and tests). */
export const TEMPLATE_INSTRUCTIONS: InstructionSource = { current: async () => INSTRUCTION_TEMPLATES };

/** The host's files, with the built-in template for each file the host holds none of. */
export function instructionTexts(instructions: AgentInstructions): InstructionTexts {
  return {
    'AGENTS.md': instructions.files['AGENTS.md'] ?? INSTRUCTION_TEMPLATES['AGENTS.md'],
    'SOUL.md': instructions.files['SOUL.md'] ?? INSTRUCTION_TEMPLATES['SOUL.md'],
  };
}

/**
 * The operator's AGENTS.md and SOUL.md from the host (`GET /mesh/instructions`), asked every turn
 * with the last ETag so an unchanged copy costs a 304. When the host cannot be reached the last
 * copy it gave is used (logged); with none yet, the turn fails rather than run without them.
 */
export function hostInstructions(
  host: Pick<HostClient, 'getInstructions'>,
  logger: Logger,
): InstructionSource {
  let cached: { etag: string; texts: InstructionTexts } | undefined;
  return {
    async current() {
      try {
        const answer = await host.getInstructions(cached?.etag);
        if (answer) cached = { etag: answer.etag, texts: instructionTexts(answer.instructions) };
      } catch (error) {
        if (!cached) throw error;
        logger.warn({ err: error }, 'the host did not give the instructions; using the copy it gave last');
      }
      // A 304 comes only after a first answer was cached: an empty ETag is never sent as current.
      return (cached ?? { texts: INSTRUCTION_TEMPLATES }).texts;
    },
  };
}
