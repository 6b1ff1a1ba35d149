import { randomBytes } from 'node:crypto';
import { OpenLegionError } from '@openlegion/protocol';

/** One open legacy SSE stream: where its agent's messages go. */
interface LegacySession {
  agent: string;
  server: string;
  /** The server's message endpoint, same origin as its configured URL (checked when it came). */
  endpoint: URL;
}

/**
 * The host's side of the legacy SSE transport: each open event stream gets a random id the host
 * hands the agent in place of the server's endpoint, and the agent's `POST .../messages?session=ID`
 * is sent to the endpoint stored under it. The agent never names an upstream URL, so it can reach
 * only the endpoint the server gave, and only while the stream it came with is open (the slots cap
 * how many an agent has).
 */
export class LegacySessions {
  readonly #sessions = new Map<string, LegacySession>();

  /** Store `endpoint` for the stream; returns its id and the function that forgets it. */
  open(agent: string, server: string, endpoint: URL): { id: string; close(): void } {
    const id = randomBytes(18).toString('base64url');
    this.#sessions.set(id, { agent, server, endpoint });
    return { id, close: () => this.#sessions.delete(id) };
  }

  /** The endpoint of `agent`'s open session `id` on `server`; 404 MCP_SESSION_UNKNOWN otherwise. */
  endpoint(agent: string, server: string, id: string | undefined): URL {
    const session = id === undefined ? undefined : this.#sessions.get(id);
    // Another agent's session id is as unknown as a made-up one.
    if (!session || session.agent !== agent || session.server !== server)
      throw new OpenLegionError(
        'MCP_SESSION_UNKNOWN',
        `no open SSE session "${(id ?? '').slice(0, 40)}" of MCP server "${server}" for agent "${agent}" (its event stream ended or never opened); connect again to /mesh/mcp/${server}/sse`,
        { details: { server } },
      );
    return session.endpoint;
  }

  get size(): number {
    return this.#sessions.size;
  }
}
