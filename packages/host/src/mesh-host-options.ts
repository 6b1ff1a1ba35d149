import type { Clock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { ChannelMesh, MeshStatus } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { LoadedMeshConfig } from './config/index.js';
import type { AgentRuntime, StartProgress } from './fleet/index.js';
import type { SecretSource } from './secrets/index.js';
import type { HostRoute } from './server/index.js';

export interface MeshHostOptions {
  loaded: LoadedMeshConfig;
  runtime: 'docker' | 'process' | 'swarm';
  logger: Logger;
  /** The host's environment: `env:` secrets and the vault key (`vault:` secrets come from <data_dir>/vault). */
  env: NodeJS.ProcessEnv;
  /** The agent entry for the process runtime (`@openlegion/agent/main`). */
  agentEntry: string;
  /** provider name → base URL, e.g. the loopback servers of scripted providers. */
  baseUrlOverrides?: Record<string, string>;
  onProgress?: (progress: StartProgress) => void;
  /**
   * `openlegion start --allow-unlocked-network`: start the docker runtime even when the network
   * lockdown cannot be installed (else MESH_NETWORK_UNLOCKED; see runtime.allow_unlocked_network).
   */
  allowUnlockedNetwork?: boolean;
  /** Injectable for tests; default: the runtime named by `runtime`. */
  agentRuntime?: AgentRuntime;
  clock?: Clock;
  secrets?: SecretSource;
}

export interface MeshHost {
  /** Listen, start every feature and agent, and wait until all are ready. Cleans up on failure. */
  start(): Promise<MeshStatus>;
  /** Stop every feature in reverse order (agents first) and close the server. Idempotent. */
  stop(): Promise<void>;
  status(): MeshStatus;
  /** Settles when an operator asks the host to shut down (`POST /api/shutdown`). */
  readonly shutdownRequested: Promise<void>;
  /** The mesh as chat channels see it (the CLI hands it to each channel it starts). */
  readonly channelMesh: ChannelMesh;
  /**
   * mesh.db with `feature`'s migrations applied, for a component the CLI wires beside the host (a
   * channel's pairings). Only once the host has started.
   */
  featureDatabase(feature: string, migrations: readonly string[]): Database;
  /** The value behind a `vault:`/`env:` reference in mesh.yaml (a channel's bot token); throws naming a missing one. */
  resolveSecret(reference: string): string;
  /** Every HTTP route of the host's app (method, URL pattern, who may call it), once it is built. */
  routes(): HostRoute[];
}
