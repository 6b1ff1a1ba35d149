import type { MeshConfig } from '@openlegion/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HostFeature } from '../features/index.js';
import { InstructionStore } from './instruction-store.js';
import { INSTRUCTIONS_MIGRATIONS } from './instructions-migrations.js';
import { registerInstructionRoutes, serveOperatorInstruction } from './instructions-routes.js';

export interface InstructionsFeature extends HostFeature {
  store(): InstructionStore;
  /** Answer the operator's GET/PUT of an agent's AGENTS.md or SOUL.md from the host's copy. */
  serveOperator: (
    request: FastifyRequest,
    reply: FastifyReply,
    target: Parameters<typeof serveOperatorInstruction>[3],
  ) => Promise<FastifyReply>;
}

/**
 * Each agent's AGENTS.md and SOUL.md, held by the host where nothing the agent runs can write
 * them: the operator writes them (through the workspace routes it already uses), the agent reads
 * them with `GET /mesh/instructions` each turn.
 */
export function instructionsFeature(): InstructionsFeature {
  let store: InstructionStore | undefined;
  let config: MeshConfig | undefined;
  const current = () => {
    if (!store) throw new Error('the instructions are used before the host database is open');
    return store;
  };
  return {
    name: 'instructions',
    migrations: INSTRUCTIONS_MIGRATIONS,
    store: current,
    init(context) {
      store = new InstructionStore(context.db, () => context.clock.now());
      config = context.config;
    },
    routes: (app) => registerInstructionRoutes(app, current),
    serveOperator: (request, reply, target) => {
      if (!config) throw new Error('the instructions are used before the host database is open');
      return serveOperatorInstruction({ store: current(), config }, request, reply, target);
    },
  };
}
