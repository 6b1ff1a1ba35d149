import { type Database, transaction } from '@openlegion/infra/sqlite';
import type { AgentInstructions, InstructionFile } from '@openlegion/protocol';

interface InstructionRow {
  file: InstructionFile;
  text: string;
  version: number;
}

/**
 * The operator's AGENTS.md and SOUL.md per agent, in mesh.db: the one copy the agent's prompt is
 * built from. mesh.db rather than files under the data dir: it is where the host keeps what must
 * survive a restart (written and synced before the write is acknowledged), a write is one
 * transaction, and the version an agent caches against comes with it.
 */
export class InstructionStore {
  readonly #db: Database;
  readonly #now: () => number;

  constructor(db: Database, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /** Both files of `agent` (null where the host holds none) and their common version. */
  get(agent: string): AgentInstructions {
    const rows = this.#db
      .prepare<[string], InstructionRow>('SELECT file, text, version FROM agent_instructions WHERE agent = ?')
      .all(agent);
    const text = (file: InstructionFile) => rows.find((row) => row.file === file)?.text ?? null;
    return {
      version: Math.max(0, ...rows.map((row) => row.version)),
      files: { 'AGENTS.md': text('AGENTS.md'), 'SOUL.md': text('SOUL.md') },
    };
  }

  /** Store one file; returns the agent's new version (one more than any before, per agent). */
  put(agent: string, file: InstructionFile, text: string): number {
    return transaction(this.#db, () => {
      const version = this.get(agent).version + 1;
      this.#db
        .prepare(
          `INSERT INTO agent_instructions (agent, file, text, version, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (agent, file) DO UPDATE SET text = excluded.text, version = excluded.version,
           updated_at = excluded.updated_at`,
        )
        .run(agent, file, text, version, this.#now());
      return version;
    });
  }
}
