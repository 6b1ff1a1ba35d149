import { OpenLegionError } from '@openlegion/protocol';

/** Sessions remembered per agent and server; past it the oldest is forgotten (its agent starts anew). */
export const SESSIONS_PER_AGENT_AND_SERVER = 64;

/**
 * Which agent each Streamable HTTP session (`Mcp-Session-Id`) belongs to. Every agent reaches a
 * server with the same credential, so to the server all sessions look alike: the host binds each
 * id the server hands out to the agent that opened it, and refuses it from any other agent, so an
 * agent cannot read or act in another's session, even on a server whose ids are easy to guess.
 */
export class SessionOwners {
  /** `server \0 agent` → that agent's session ids, oldest first. */
  readonly #byAgent = new Map<string, string[]>();

  /** Remember `id`, which `server` gave `agent`. */
  claim(server: string, agent: string, id: string): void {
    const key = `${server}\0${agent}`;
    const ids = this.#byAgent.get(key) ?? [];
    if (ids.includes(id)) return;
    ids.push(id);
    if (ids.length > SESSIONS_PER_AGENT_AND_SERVER) ids.shift();
    this.#byAgent.set(key, ids);
  }

  /** Throws 404 MCP_SESSION_UNKNOWN unless `server` gave `id` to `agent` through this host. */
  require(server: string, agent: string, id: string): void {
    if (this.#byAgent.get(`${server}\0${agent}`)?.includes(id)) return;
    throw new OpenLegionError(
      'MCP_SESSION_UNKNOWN',
      `MCP server "${server}" gave agent "${agent}" no session "${id.slice(0, 40)}" through this host; start a new one (initialize without Mcp-Session-Id)`,
      { details: { server } },
    );
  }

  /** The session ended (DELETE): forget it. */
  forget(server: string, agent: string, id: string): void {
    const ids = this.#byAgent.get(`${server}\0${agent}`);
    const at = ids?.indexOf(id) ?? -1;
    if (ids && at >= 0) ids.splice(at, 1);
  }
}
