import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findFreePort } from '@openlegion/infra/http';

/** A TCP port free on loopback right now. */
export const freePort = (): Promise<number> => findFreePort('127.0.0.1');

/**
 * A free port for the egress proxy too, other than `port`. Its default, mesh.port + 1, is often an
 * even port in the range Linux hands out to outgoing connections, so on a busy machine it was
 * sometimes taken (a flaky "egress proxy's port is taken" start failure).
 */
async function egressPortBeside(port: number): Promise<number> {
  for (;;) {
    const candidate = await freePort();
    if (candidate !== port) return candidate;
  }
}

export interface E2eMesh {
  name: string;
  dir: string;
  file: string;
  port: number;
  egressPort: number;
  dataDir: string;
}

/** Write a mesh.yaml for a test mesh in a fresh temp folder; `extra` is appended YAML. */
export async function writeMesh(options: {
  prefix: string;
  providerUrl: string;
  runtime: 'docker' | 'process';
  image?: string;
  readyTimeoutMs?: number;
  port?: number;
  agents?: string[];
  /** The provider key reference (default env:E2E_PROVIDER_KEY). */
  apiKey?: string;
  /** More fields of an agent's mapping, by agent (e.g. `permissions: { egress: [...] }`). */
  agentFields?: Record<string, string>;
  /** More top-level YAML, appended as is (e.g. a channels section). */
  extra?: string;
  /** `llm.tiers` (e.g. `{ fast: 'upstream/gpt-fast' }`). */
  tiers?: Record<string, string>;
}): Promise<E2eMesh> {
  const dir = await mkdtemp(path.join(tmpdir(), `ol-${options.prefix}-`));
  const name = `${options.prefix}-${Math.random().toString(36).slice(2, 8)}`;
  const port = options.port ?? (await freePort());
  const egressPort = await egressPortBeside(port);
  const agents = options.agents ?? ['alpha', 'beta'];
  const text = `mesh: { name: ${name}, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime:
  kind: ${options.runtime}
  image: ${options.image ?? 'openlegion-agent:latest'}
  resources: { memory: 256m, cpus: 0.5, pids: 128 }
  ready_timeout_ms: ${options.readyTimeoutMs ?? 60_000}
llm:
  default_model: upstream/gpt-test${
    options.tiers
      ? `\n  tiers: { ${Object.entries(options.tiers)
          .map(([tier, model]) => `${tier}: ${model}`)
          .join(', ')} }`
      : ''
  }
  providers:
    upstream: { kind: openai-compatible, base_url: "${options.providerUrl}", api_key: ${options.apiKey ?? 'env:E2E_PROVIDER_KEY'} }
agents:
${agents.map((agent) => `  ${agent}: { role: e2e agent ${agent}, soul: Terse.${options.agentFields?.[agent] ? `, ${options.agentFields[agent]}` : ''} }`).join('\n')}
${options.extra ?? ''}`;
  const file = path.join(dir, 'mesh.yaml');
  await writeFile(file, text);
  return { name, dir, file, port, egressPort, dataDir: path.join(dir, 'data') };
}
