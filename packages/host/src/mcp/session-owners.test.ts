import { describe, expect, it } from 'vitest';
import { SESSIONS_PER_AGENT_AND_SERVER, SessionOwners } from './session-owners.js';

describe('SessionOwners', () => {
  it('accepts a session only from the agent it was given to, on that server', () => {
    const owners = new SessionOwners();
    owners.claim('s', 'a', 'id-1');
    expect(() => owners.require('s', 'a', 'id-1')).not.toThrow();
    expect(() => owners.require('s', 'b', 'id-1')).toThrow(
      'MCP server "s" gave agent "b" no session "id-1" through this host; start a new one (initialize without Mcp-Session-Id)',
    );
    expect(() => owners.require('t', 'a', 'id-1')).toThrow(/no session/);
  });

  it('forgets a deleted session, and the oldest past the cap', () => {
    const owners = new SessionOwners();
    for (let i = 0; i <= SESSIONS_PER_AGENT_AND_SERVER; i++) owners.claim('s', 'a', `id-${i}`);
    expect(() => owners.require('s', 'a', 'id-0')).toThrow(/no session/);
    expect(() => owners.require('s', 'a', 'id-1')).not.toThrow();
    owners.forget('s', 'a', 'id-1');
    expect(() => owners.require('s', 'a', 'id-1')).toThrow(/no session/);
  });
});
