import { describe, expect, it } from 'vitest';
import { parseByteSize, toDockerLimits } from './resource-limits.js';

describe('parseByteSize', () => {
  it('reads binary units as Docker does', () => {
    expect(parseByteSize('512m')).toBe(512 * 1024 ** 2);
    expect(parseByteSize('1g')).toBe(1024 ** 3);
    expect(parseByteSize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseByteSize('256mb')).toBe(256 * 1024 ** 2);
    expect(parseByteSize('64k')).toBe(64 * 1024);
    expect(parseByteSize('1048576')).toBe(1_048_576);
  });

  it('rejects a size without a number with CONFIG_INVALID naming the field', () => {
    expect(() => parseByteSize('lots')).toThrow(/runtime\.resources\.memory/);
  });
});

describe('toDockerLimits', () => {
  it('turns mesh.yaml resources into memory without swap, nano-CPUs and a pids limit', () => {
    expect(toDockerLimits({ memory: '512m', cpus: 0.5, pids: 256 })).toEqual({
      Memory: 536_870_912,
      MemorySwap: 536_870_912,
      NanoCpus: 500_000_000,
      PidsLimit: 256,
    });
  });
});
