import { type AgentTool, OpenLegionError, type SpawnedAgent } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import type { MeshCall, MeshClient } from './mesh-client.js';
import { createSpawnTools } from './spawn-tools.js';

const agent = (fields: Partial<SpawnedAgent> = {}): SpawnedAgent => ({
  name: 'researcher-3f2a',
  template: 'researcher',
  spawner: 'lead',
  origin: 'agent',
  state: 'running',
  task: 'find the tide',
  result: null,
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-01T00:10:00.000Z',
  ended_at: null,
  ...fields,
});

/** The tools over a mesh client that answers with `answer` and records each call. */
function toolsAnswering(answer: (call: MeshCall) => unknown) {
  const calls: MeshCall[] = [];
  const mesh: MeshClient = {
    call: async (call) => {
      calls.push(call);
      return answer(call);
    },
    events: async () => [],
  };
  const [spawn, list] = createSpawnTools(mesh) as [AgentTool, AgentTool];
  const context = { workspace: '/tmp', signal: new AbortController().signal, traceId: 'trace-1' };
  const text = async (tool: AgentTool, input: unknown) => {
    const result = await tool.run(tool.input.parse(input), context);
    return {
      text: result.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
      error: result.isError === true,
    };
  };
  return {
    calls,
    mesh,
    spawn: (input: unknown) => text(spawn, input),
    list: (input: unknown) => text(list, input),
  };
}

describe('spawn_agent and spawned_agents', () => {
  it('asks for a squad when given one and says which it got', async () => {
    const tools = toolsAnswering(() => ({ agent: agent({ squad: 'research' }) }));
    expect(
      (await tools.spawn({ template: 'researcher', task: 'find the tide', squad: 'research' })).text,
    ).toBe(
      'started researcher-3f2a (template researcher, squad research, removed at 2026-01-01T00:10:00.000Z at the latest); its answer will arrive as a message',
    );
    expect(tools.calls[0]?.body).toEqual({
      template: 'researcher',
      task: 'find the tide',
      squad: 'research',
    });
    expect(() =>
      createSpawnTools(tools.mesh)[0]?.input.parse({ template: 't', task: 't', squad: 'a b' }),
    ).toThrow(/use a squad name/);
  });

  it('starts one and says where its answer will arrive', async () => {
    const tools = toolsAnswering(() => ({ agent: agent() }));
    expect(await tools.spawn({ template: 'researcher', task: 'find the tide', ttl_s: 120 })).toEqual({
      text: 'started researcher-3f2a (template researcher, removed at 2026-01-01T00:10:00.000Z at the latest); its answer will arrive as a message',
      error: false,
    });
    expect(tools.calls[0]).toMatchObject({
      method: 'POST',
      path: '/mesh/spawn',
      body: { template: 'researcher', task: 'find the tide', ttl_s: 120 },
      traceId: 'trace-1',
    });
  });

  it('with wait_s returns the answer fenced as untrusted, and gives the call time beyond the wait', async () => {
    const tools = toolsAnswering(() => ({
      agent: agent({ state: 'done', result: 'High tide 06:12', ended_at: '2026-01-01T00:00:05.000Z' }),
    }));
    const { text } = await tools.spawn({ template: 'researcher', task: 'find the tide', wait_s: 60 });
    expect(text).toBe(
      'researcher-3f2a (template researcher): done\n<untrusted source="temporary agent researcher-3f2a">\nHigh tide 06:12\n</untrusted>',
    );
    expect(tools.calls[0]).toMatchObject({ body: { wait_s: 60 }, timeoutMs: 70_000 });
  });

  it("gives the host's refusal to the model as the tool's error", async () => {
    const tools = toolsAnswering(() => {
      throw new OpenLegionError(
        'SPAWN_TEMPLATE_UNKNOWN',
        'no template "nope" under templates in mesh.yaml (templates: researcher)',
      );
    });
    expect(await tools.spawn({ template: 'nope', task: 't' })).toEqual({
      text: 'SPAWN_TEMPLATE_UNKNOWN: no template "nope" under templates in mesh.yaml (templates: researcher)',
      error: true,
    });
  });

  it('lists the ones it started, or shows one with its answer', async () => {
    const tools = toolsAnswering((call) =>
      call.path === '/mesh/spawn'
        ? { agents: [agent({ state: 'done', result: 'x' }), agent({ name: 'researcher-0001' })] }
        : { agent: agent({ state: 'failed', result: 'did not start: boom' }) },
    );
    expect((await tools.list({})).text).toBe(
      'researcher-3f2a (researcher): done\nresearcher-0001 (researcher): running',
    );
    expect((await tools.list({ name: 'researcher-3f2a' })).text).toBe(
      'researcher-3f2a (template researcher): failed\n<untrusted source="temporary agent researcher-3f2a">\ndid not start: boom\n</untrusted>',
    );
    expect(tools.calls[1]?.path).toBe('/mesh/spawn/researcher-3f2a');
  });
});
