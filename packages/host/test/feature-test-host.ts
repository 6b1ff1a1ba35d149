import { FakeClock } from '@openlegion/infra/clock';
import { createLogger } from '@openlegion/infra/log';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { type MeshConfig, type MeshConfigInput, meshConfigSchema } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { type SessionCheck, TokenRegistry } from '../src/auth/index.js';
import { DASHBOARD_SESSIONS } from '../src/dashboard/index.js';
import {
  type BuiltFeature,
  buildFeatures,
  EventBus,
  type HostFeature,
  OperatorNotices,
  type ServiceKey,
  type SharedContext,
} from '../src/features/index.js';
import { environmentSecrets, type SecretSource } from '../src/secrets/index.js';
import { buildHostApp, requestRateOf } from '../src/server/index.js';

export const TEST_OPERATOR_TOKEN = 'operator-token-for-tests';

/** Two agents and one provider whose key comes from the environment. */
export const DEFAULT_TEST_CONFIG: MeshConfigInput = {
  llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
  agents: { a: {}, b: {} },
};

export interface FeatureTestHost {
  app: FastifyInstance;
  context: SharedContext;
  /** The features, built, in start order (a test may stop one alone). */
  features: readonly BuiltFeature[];
  /** A service a feature under test provides (a test asks for what it wants to look at). */
  service<T>(key: ServiceKey<T>): T;
  clock: FakeClock;
  tokens: TokenRegistry;
  /** What features reported with `context.warn`. */
  warnings: string[];
  /** A bearer header for an agent of the config (its token is minted on first use). */
  agentAuth(agent: string): { authorization: string };
  operatorAuth: { authorization: string };
  stop(): Promise<void>;
}

/**
 * Features under test in a real host app (fastify, auth, error bodies) over an in-memory mesh.db,
 * with a fake clock. Requests go through `app.inject`, or `app.listen` for real HTTP.
 *
 * @example
 * const host = await startFeatureTestHost([blackboardFeature()], { agents: { a: {} } });
 * const res = await host.app.inject({ method: 'GET', url: '/mesh/blackboard/x', headers: host.agentAuth('a') });
 */
export async function startFeatureTestHost(
  features: readonly HostFeature[],
  config: MeshConfigInput | MeshConfig = DEFAULT_TEST_CONFIG,
  options: {
    secrets?: SecretSource;
    dataDir?: string;
    clock?: FakeClock;
    /** The agent tokens route auth checks and features read (default: a fresh registry). */
    tokens?: TokenRegistry;
    /** Run the features' start hooks (default true); routes are registered either way. */
    start?: boolean;
    /** A mesh.db file to open instead of an in-memory one (to test a restart over the same data). */
    dbFile?: string;
    /** Capture the host's log lines (at debug level) here instead of discarding them. */
    logTo?: { write(line: string): void };
  } = {},
): Promise<FeatureTestHost> {
  const db = openDatabase(options.dbFile ?? ':memory:');
  migrate(
    db,
    features.flatMap(({ name, migrations }) => (migrations ? [{ feature: name, steps: migrations }] : [])),
  );
  const clock = options.clock ?? new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const controller = new AbortController();
  const warnings: string[] = [];
  const logger = options.logTo
    ? createLogger({ level: 'debug', destination: options.logTo })
    : createLogger({ level: 'silent' });
  const dataDir = options.dataDir ?? '/nonexistent-data-dir';
  const tokens = options.tokens ?? new TokenRegistry();
  const context: SharedContext = {
    config: meshConfigSchema.parse(config),
    dataDir,
    resolvePath: (relative) => `${dataDir}/${relative}`,
    db,
    clock,
    logger,
    secrets: options.secrets ?? environmentSecrets({}),
    signal: controller.signal,
    warn: (message) => warnings.push(message),
    events: new EventBus(logger),
    tokens,
    notices: new OperatorNotices(logger),
  };
  const services = new Map<string, unknown>();
  // The test host's own feature needs everything the features under test provide, so it can hand it out.
  const looker: HostFeature = {
    name: 'feature-test-host',
    needs: features.flatMap((feature) => feature.provides ?? []),
    build(view) {
      for (const key of this.needs ?? []) services.set(key.name, view.need(key));
      return {};
    },
  };
  const built: BuiltFeature[] = buildFeatures([...features, looker], context);
  const app = await buildHostApp({
    logger,
    // As in the real host, the dashboard's sessions sign the operator in when it is under test.
    auth: {
      tokens,
      operatorToken: TEST_OPERATOR_TOKEN,
      sessions: services.get(DASHBOARD_SESSIONS.name) as SessionCheck | undefined,
    },
    // As in the real host: each agent held to limits.requests_per_agent_per_s.
    requests: requestRateOf(context),
    features: built,
  });
  await app.ready();
  if (options.start !== false) for (const feature of built) await feature.start?.();
  return {
    app,
    context,
    features: built,
    service<T>(key: ServiceKey<T>): T {
      if (!services.has(key.name)) throw new Error(`no feature under test provides "${key.name}"`);
      // Stored under this key's name by its provider, so it is a T.
      return services.get(key.name) as T;
    },
    clock,
    tokens,
    warnings,
    agentAuth: (agent) => ({ authorization: `Bearer ${tokens.tokenFor(agent) ?? tokens.mint(agent)}` }),
    operatorAuth: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
    async stop() {
      controller.abort();
      await app.close();
      for (const feature of [...built].reverse()) await feature.stop?.();
      db.close();
    },
  };
}
