import { eventKey } from '../features/index.js';

/** A temporary agent (fleet spawn) as its joining is announced. */
export interface TemporaryAgentJoined {
  /** Its generated name (`TEMPLATE-xxxx`), now in `config.agents` with the template's fields. */
  name: string;
  template: string;
  /** The agent that spawned it; null when the operator or a cron entry did. */
  spawner: string | null;
}

/**
 * A temporary agent joined the fleet's agents, before it starts or makes any call: features that
 * keep state per agent set it up (costs bills it to its spawner, pub/sub makes its template's
 * standing subscriptions). Announced by the spawn feature; it does not know who listens.
 */
export const TEMPORARY_AGENT_JOINED = eventKey<TemporaryAgentJoined>('fleet.temporary-agent-joined');

/**
 * A temporary agent ended and was removed (container, tokens, data, its place in `config.agents`):
 * what features kept for it goes (pub/sub deletes its subscriptions, so nothing wakes a gone agent).
 */
export const TEMPORARY_AGENT_LEFT = eventKey<{ name: string }>('fleet.temporary-agent-left');
