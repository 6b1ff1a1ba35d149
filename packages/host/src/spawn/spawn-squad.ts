import {
  captureSession,
  formatSquadMemory,
  SESSION_MEMORY_INSTRUCTION,
  type SquadMemoryAccess,
} from '@openlegion/memory';
import { type AgentConfig, squadMemoryScope, type TemplateConfig } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { SharedMemoryStore } from '../memory/index.js';
import type { MeshPermissions } from '../permissions/index.js';

/** Items of one squad read per spawn (the store's page): a squad's memory is far smaller. */
const SQUAD_ITEMS_READ = 10_000;

/** A spawn that names a squad: who it is for, and what its agent is told. */
export interface SquadSpawn {
  squad: string;
  /** The template's name: the ROLE its agent's lessons are tagged with and filtered by. */
  template: string;
  task: string;
  /** The agent that asked (permission-checked), or null for the operator and cron. */
  spawner: string | null;
}

/**
 * Squad memory (seed 003) for fleet spawns: a temporary agent with a squad starts with the squad's
 * memory for its template and task, and when it ends `done` its answer's `## Session Memory`
 * lessons are captured into `squad:NAME` (distilled every third session). The logic is the memory
 * package's, the same as for an agent's subagents; this is the host's store behind it.
 */
export class SpawnSquads {
  readonly #store: SharedMemoryStore;
  readonly #permissions: MeshPermissions;
  readonly #logger: Logger;

  constructor(deps: { store: SharedMemoryStore; permissions: MeshPermissions; logger: Logger }) {
    this.#store = deps.store;
    this.#permissions = deps.permissions;
    this.#logger = deps.logger;
  }

  /**
   * The first message of a squad's temporary agent: the squad's memory (fenced, each layer within
   * its budget), the Session Memory instruction and its role tag, then the task. Called before
   * anything is made: an agent spawner that may not read and write `squad:NAME` is refused here.
   * @throws {OpenLegionError} `MESH_FORBIDDEN` naming the line to add; the store's errors.
   */
  prompt(spawn: SquadSpawn): string {
    const scope = squadMemoryScope(spawn.squad);
    if (spawn.spawner !== null) {
      this.#permissions.require(spawn.spawner, 'memory.read', scope);
      this.#permissions.require(spawn.spawner, 'memory.write', scope);
    }
    // The template's name is the ROLE, cut to the 32 characters a lesson's tag may have.
    const role = spawn.template.toUpperCase().slice(0, 32);
    const memory = formatSquadMemory(spawn.squad, this.#store.list(scope, SQUAD_ITEMS_READ, 0), {
      role,
      task: spawn.task,
    });
    const instruction = `${SESSION_MEMORY_INSTRUCTION} Your ROLE for those lessons is ${role}.`;
    return [memory.text, instruction, spawn.task].filter(Boolean).join('\n\n');
  }

  /**
   * After a run that ended `done`: its lessons into the squad's memory as the spawner (the
   * operator for operator and cron runs), all of a session's or none. A failure is logged, never
   * thrown: the answer has reached its spawner either way.
   */
  async capture(
    spawn: Pick<SquadSpawn, 'squad' | 'spawner'>,
    session: { name: string; answer: string },
  ): Promise<void> {
    try {
      const done = await captureSession(this.#access(spawn.spawner), spawn.squad, {
        id: session.name,
        answer: session.answer,
      });
      if (done.captured > 0)
        this.#logger.info({ squad: spawn.squad, agent: session.name, ...done }, 'squad memory captured');
    } catch (error) {
      this.#logger.warn(
        { err: error, squad: spawn.squad, agent: session.name },
        "a temporary agent's lessons could not be captured into its squad's memory",
      );
    }
  }

  #access(writer: string | null): SquadMemoryAccess {
    const store = this.#store;
    return {
      read: async (squad) => store.list(squadMemoryScope(squad), SQUAD_ITEMS_READ, 0),
      write: async (squad, layer, contents) => {
        await store.saveMany(
          squadMemoryScope(squad),
          writer,
          contents.map((content) => ({ content, category: layer })),
        );
      },
    };
  }
}

/** The squad of a spawn: the one it names, else its template's; undefined for none. */
export function squadOf(
  request: { squad?: string | undefined },
  template: TemplateConfig,
): string | undefined {
  return request.squad ?? template.squad;
}

/** A template as the agent it starts: its `squad` is the spawn's, not a field of an agent. */
export function templateAgent(template: TemplateConfig): AgentConfig {
  const { squad: _squad, ...agent } = template;
  return agent;
}
