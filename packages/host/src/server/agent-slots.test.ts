import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { AgentSlots } from './agent-slots.js';

describe('AgentSlots', () => {
  it('refuses the stream past the cap, naming the field, and takes one again once a slot is back', () => {
    const slots = new AgentSlots(4);
    const releases = [1, 2, 3, 4].map(() => slots.acquire('a'));
    let refused: unknown;
    try {
      slots.acquire('a');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(OpenLegionError);
    expect(refused).toMatchObject({
      code: 'MESH_STREAM_LIMIT',
      status: 429,
      message:
        'agent "a" already has 4 streams open, as many as limits.streams_per_agent (4) allows; ' +
        'close one (end a watch or a pub/sub stream) before opening another',
    });
    expect(slots.acquire('b')).toBeTypeOf('function');
    releases[0]?.();
    expect(slots.open('a')).toBe(3);
    slots.acquire('a');
    expect(slots.open('a')).toBe(4);
  });

  it('gives a slot back once however many ways a stream ends', () => {
    const slots = new AgentSlots(2);
    const release = slots.acquire('a');
    slots.acquire('a');
    release();
    release();
    expect(slots.open('a')).toBe(1);
  });
});
