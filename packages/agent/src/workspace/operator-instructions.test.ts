import { type AgentInstructions, OpenLegionError } from '@openlegion/protocol';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { hostInstructions } from './operator-instructions.js';
import { INSTRUCTION_TEMPLATES } from './workspace-scaffold.js';

const held = (version: number, agents: string | null, soul: string | null = null): AgentInstructions => ({
  version,
  files: { 'AGENTS.md': agents, 'SOUL.md': soul },
});

/** A host that answers from a list of outcomes, recording the ETag each call sent. */
function scriptedHost(outcomes: (AgentInstructions | 'not-modified' | Error)[]) {
  const sent: (string | undefined)[] = [];
  return {
    sent,
    async getInstructions(etag?: string) {
      sent.push(etag);
      const next = outcomes.shift();
      if (next === undefined) throw new Error('no more answers scripted');
      if (next instanceof Error) throw next;
      if (next === 'not-modified') return undefined;
      return { etag: `"${next.version}"`, instructions: next };
    },
  };
}

const silent = pino({ level: 'silent' });

describe('hostInstructions', () => {
  it("gives the host's texts, and the built-in template for a file the host holds none of", async () => {
    const source = hostInstructions(scriptedHost([held(3, 'Cite sources.')]), silent);
    expect(await source.current()).toEqual({
      'AGENTS.md': 'Cite sources.',
      'SOUL.md': INSTRUCTION_TEMPLATES['SOUL.md'],
    });
  });

  it('asks with the last ETag and keeps its copy on 304', async () => {
    const host = scriptedHost([held(1, 'v1'), 'not-modified', held(2, 'v2')]);
    const source = hostInstructions(host, silent);
    const seen = [await source.current(), await source.current(), await source.current()];
    expect([seen.map((texts) => texts['AGENTS.md']), host.sent]).toEqual([
      ['v1', 'v1', 'v2'],
      [undefined, '"1"', '"1"'],
    ]);
  });

  it('uses the last copy when the host cannot be reached, and fails when it never gave one', async () => {
    const down = new OpenLegionError('MESH_NOT_RUNNING', 'GET /mesh/instructions: host unreachable');
    const source = hostInstructions(scriptedHost([held(1, 'v1'), down]), silent);
    const fresh = hostInstructions(scriptedHost([down]), silent);
    expect([(await source.current())['AGENTS.md'], (await source.current())['AGENTS.md']]).toEqual([
      'v1',
      'v1',
    ]);
    await expect(fresh.current()).rejects.toThrow('host unreachable');
  });
});
