import type { FastifyReply, FastifyRequest } from 'fastify';
import { type HostFeature, serviceKey } from '../features/index.js';
import { InstructionStore } from './instruction-store.js';
import { INSTRUCTIONS_MIGRATIONS } from './instructions-migrations.js';
import { registerInstructionRoutes, serveOperatorInstruction } from './instructions-routes.js';

/** Each agent's AGENTS.md and SOUL.md as the host holds them. */
export interface AgentInstructions {
  readonly store: InstructionStore;
  /** Answer the operator's GET/PUT of an agent's AGENTS.md or SOUL.md from the host's copy. */
  serveOperator(
    request: FastifyRequest,
    reply: FastifyReply,
    target: Parameters<typeof serveOperatorInstruction>[3],
  ): Promise<FastifyReply>;
}

/** The host's copy of the agents' instructions (the operator's routes need it). */
export const INSTRUCTIONS = serviceKey<AgentInstructions>('instructions');

/**
 * Each agent's AGENTS.md and SOUL.md, held by the host where nothing the agent runs can write
 * them: the operator writes them (through the workspace routes it already uses), the agent reads
 * them with `GET /mesh/instructions` each turn.
 */
export function instructionsFeature(): HostFeature {
  return {
    name: 'instructions',
    migrations: INSTRUCTIONS_MIGRATIONS,
    provides: [INSTRUCTIONS],
    build(context) {
      const store = new InstructionStore(context.db, () => context.clock.now());
      const { config } = context;
      context.provide(INSTRUCTIONS, {
        store,
        serveOperator: (request, reply, target) =>
          serveOperatorInstruction({ store, config }, request, reply, target),
      });
      return { routes: (app) => registerInstructionRoutes(app, () => store) };
    },
  };
}
