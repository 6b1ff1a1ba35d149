import { OpenLegionError } from '@openlegion/protocol';
import type { AgentResources } from './agent-runtime.js';

const BYTES_PER_UNIT = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as const;
const NANO_CPUS_PER_CPU = 1e9;

/** Docker's names for an agent's limits. */
export interface DockerLimits {
  Memory: number;
  /** Equal to `Memory`: no swap on top. */
  MemorySwap: number;
  NanoCpus: number;
  PidsLimit: number;
}

/**
 * Parses a size as mesh.yaml writes it (`512m`, `1g`, `1.5g`, `256mb`, `1048576`) into bytes,
 * with binary units as Docker uses them.
 */
export function parseByteSize(size: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)b?$/i.exec(size.trim());
  const unit = match?.[2]?.toLowerCase();
  if (!match?.[1] || (unit !== '' && unit !== 'k' && unit !== 'm' && unit !== 'g')) {
    throw new OpenLegionError(
      'CONFIG_INVALID',
      `runtime.resources.memory: "${size}" is not a size like 512m or 1g`,
    );
  }
  return Math.round(Number(match[1]) * BYTES_PER_UNIT[unit]);
}

/** Turns mesh.yaml resources into Docker HostConfig limits. */
export function toDockerLimits(resources: AgentResources): DockerLimits {
  const memory = parseByteSize(resources.memory);
  return {
    Memory: memory,
    MemorySwap: memory,
    NanoCpus: Math.round(resources.cpus * NANO_CPUS_PER_CPU),
    PidsLimit: resources.pids,
  };
}
