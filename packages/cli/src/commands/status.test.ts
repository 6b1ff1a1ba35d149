import type { MeshStatus } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { runCli } from '../program.js';
import { printStatus } from './status.js';

const STATUS: MeshStatus = {
  mesh: 'demo',
  version: '0.1.0',
  pid: 42,
  url: 'http://127.0.0.1:8420',
  started_at: '2026-01-01T00:00:00.000Z',
  runtime: 'docker',
  agents: [],
  warnings: [],
};

describe('openlegion status', () => {
  it('says whether the mesh network is locked', () => {
    const lines = (network: MeshStatus['network']) => {
      const output = capture();
      printStatus({ ...STATUS, ...(network ? { network } : {}) }, output);
      return output.stdout();
    };
    expect(lines('locked')).toContain(
      "  network: locked (agents reach only the host's mesh and egress ports)\n",
    );
    expect(lines('unlocked')).toContain(
      '  network: UNLOCKED (allowed by --allow-unlocked-network or runtime.allow_unlocked_network): agents can reach services bound on 0.0.0.0\n',
    );
    expect(lines('none')).toContain(
      '  network: not isolated (process runtime: agents are plain processes)\n',
    );
    expect(lines(undefined)).not.toContain('network:');
  });

  it("names the swarm runtime's isolation: an overlay per agent", () => {
    const output = capture();
    printStatus({ ...STATUS, runtime: 'swarm', network: 'none' }, output);
    expect(output.stdout()).toContain(
      '  network: one internal overlay per agent, shared only with the host (swarm)\n',
    );
  });

  it('offers start --allow-unlocked-network, saying what it costs', async () => {
    const output = capture();
    await runCli(['node', 'openlegion', 'start', '--help'], output);
    expect(output.stdout()).toMatch(
      /--allow-unlocked-network\s+start even if the network lockdown cannot be/,
    );
  });
});
