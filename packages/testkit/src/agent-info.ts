import type { AgentInfo } from '@openlegion/protocol';

/** An agent as the host lists it, ready on the process runtime, for stand-in hosts and meshes in tests. */
export function readyAgentInfo(name: string, overrides: Partial<AgentInfo> = {}): AgentInfo {
  return {
    name,
    state: 'ready',
    runtime: 'process',
    model: 'demo/scripted',
    url: null,
    container: null,
    started_at: null,
    ready_at: null,
    restarts: 0,
    last_error: null,
    ...overrides,
  };
}
