import { z } from 'zod';

/**
 * The operator's files that steer an agent. The host holds them (mesh.db), never the agent's
 * workspace: whatever the agent runs can write its workspace, so a copy there could be rewritten.
 */
export const INSTRUCTION_FILES = ['AGENTS.md', 'SOUL.md'] as const;
export type InstructionFile = (typeof INSTRUCTION_FILES)[number];

/** Largest instruction file the host keeps, in bytes: the same limit as any workspace file. */
export const INSTRUCTION_FILE_MAX_BYTES = 1024 * 1024;

/**
 * `GET /mesh/instructions` (bearer = agent token): the calling agent's AGENTS.md and SOUL.md as
 * the operator wrote them. `null` means the host holds none and the agent uses its built-in
 * template. The answer carries `ETag: "<version>"`; a request with that `If-None-Match` gets 304.
 */
export const agentInstructionsSchema = z.object({
  /** Grows with every write of either file; 0 while the host holds neither. */
  version: z.number().int().min(0),
  files: z.object({
    'AGENTS.md': z.string().nullable(),
    'SOUL.md': z.string().nullable(),
  }),
});
export type AgentInstructions = z.infer<typeof agentInstructionsSchema>;

/** `PUT /api/agents/:agent/workspace/AGENTS.md` (or SOUL.md): what the host stored. */
export const instructionPutResponseSchema = z.object({
  file: z.enum(INSTRUCTION_FILES),
  bytes: z.number().int().min(0),
  version: z.number().int().min(1),
});
