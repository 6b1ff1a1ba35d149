import type { Database } from '@openlegion/infra/sqlite';

/**
 * Whose budget pays for each agent's calls: its own, unless it is a temporary agent an agent
 * spawned (fleet spawn), which draws on its spawner's, so a spawner cannot escape its budget by
 * spawning. Persisted in mesh.db (`cost_billing`), not read from `config.agents`: a temporary agent
 * leaves the config when it ends, while a call it made may still be recorded after that.
 */
export class BillingOwners {
  readonly #db: Database;
  /** Asked on every call: the table is read once per agent. */
  readonly #cache = new Map<string, string>();

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * `agent` was spawned by `spawner`: its calls are billed to whoever pays for the spawner (a
   * temporary agent's temporary agent to the agent at the root, so spawning from a spawn escapes
   * nothing). `null` (a temporary agent of the operator or cron) bills them to the agent itself,
   * replacing what an earlier agent of the same name had.
   */
  assign(agent: string, spawner: string | null, now: number): void {
    const owner = spawner === null ? null : this.ownerOf(spawner);
    if (owner === null || owner === agent) {
      this.#db.prepare('DELETE FROM cost_billing WHERE agent = ?').run(agent);
      this.#cache.set(agent, agent);
      return;
    }
    this.#db
      .prepare(
        `INSERT INTO cost_billing (agent, billed_to, assigned_at) VALUES (?, ?, ?)
         ON CONFLICT (agent) DO UPDATE SET billed_to = excluded.billed_to, assigned_at = excluded.assigned_at`,
      )
      .run(agent, owner, now);
    this.#cache.set(agent, owner);
  }

  /** `agent` left the fleet: its owner is read from the table again should it be asked. */
  forget(agent: string): void {
    this.#cache.delete(agent);
  }

  /** The agent whose budget `agent`'s calls draw on (itself unless assigned). */
  ownerOf(agent: string): string {
    let owner = this.#cache.get(agent);
    if (owner === undefined) {
      owner =
        this.#db
          .prepare<[string], { billed_to: string }>('SELECT billed_to FROM cost_billing WHERE agent = ?')
          .get(agent)?.billed_to ?? agent;
      this.#cache.set(agent, owner);
    }
    return owner;
  }
}
