import type { Clock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { MeshConfig } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { TokenRegistry } from '../auth/index.js';
import type { SecretSource } from '../secrets/index.js';
import type { EventBus } from './event-bus.js';
import type { OperatorNotices } from './operator-notices.js';
import type { ServiceKey } from './service-key.js';

/** What every feature is given: the frozen config, the host's database and shared services. */
export interface FeatureContext {
  /** Validated and deep-frozen. */
  readonly config: MeshConfig;
  /** Absolute `mesh.data_dir`. */
  readonly dataDir: string;
  /** Resolve a path written in mesh.yaml (relative to its folder). */
  readonly resolvePath: (relative: string) => string;
  /** `<data_dir>/mesh.db`, open, with every feature's migrations applied. */
  readonly db: Database;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly secrets: SecretSource;
  /** Aborts when the host stops, including a stop (Ctrl-C) during start-up. */
  readonly signal: AbortSignal;
  /** Something the operator must know (logged at warn, shown in `openlegion status`). */
  warn(message: string): void;
  /** The host's one bus for facts features announce and others react to. */
  readonly events: EventBus;
  /** The agents' mesh and proxy tokens: the fleet mints them, route auth and features reaching agents read them. */
  readonly tokens: TokenRegistry;
  /** Notices for the operator's channels (approvals that wait, `on_complete.notify`). */
  readonly notices: OperatorNotices;
  /**
   * A service another feature provides. Only keys the feature declares in `needs`: the kernel built
   * their providers first, so the service is real and this never waits or fails at run time.
   */
  need<T>(key: ServiceKey<T>): T;
  /** Hand out a service this feature declares in `provides` (while it is built). */
  provide<T>(key: ServiceKey<T>, service: T): void;
}

/** What a feature is, once built with real services: its routes and its start/stop hooks. */
export interface FeatureParts {
  /**
   * Register HTTP routes. Called once when the app is built, which may happen while features
   * later in the start order are still starting.
   * Each route declares who may call it: `{ config: { auth: 'agent' | 'operator' | ... } }`.
   */
  routes?(app: FastifyInstance): void;
  /** Bring the feature up (timers, listeners, agents). A throw fails the host's start. */
  start?(): Promise<void> | void;
  /** Bring it down; idempotent. Errors are logged, and the other features still stop. */
  stop?(): Promise<void> | void;
}

/** A feature built by the kernel, in start order. */
export interface BuiltFeature extends FeatureParts {
  readonly name: string;
}

/**
 * One host capability (vault, llm, blackboard, lanes, cron, ...), in its own folder, in one shape:
 * a plugin unit. It declares what it `needs` and `provides` (typed keys); once mesh.db is open and
 * migrated, the kernel builds every feature in an order its needs decide (the list order breaks
 * ties; a circle is a start-up error naming it), handing each the real services it needs, so no
 * service is ever looked at before it exists. Facts other features react to go on `events`.
 * The host starts features in that order and stops them in reverse (also after a failed or
 * interrupted start, for the features that started).
 *
 * @example
 * export const BLACKBOARD = serviceKey<BlackboardStore>('blackboard.store');
 * export function blackboardFeature(): HostFeature {
 *   return {
 *     name: 'blackboard',
 *     migrations: BLACKBOARD_MIGRATIONS,
 *     provides: [BLACKBOARD],
 *     build(context) {
 *       const store = new BlackboardStore(context.db);
 *       context.provide(BLACKBOARD, store);
 *       return { routes: (app) => registerBlackboardRoutes(app, store) };
 *     },
 *   };
 * }
 */
export interface HostFeature {
  /** Stable and unique: it names the feature's migration track in mesh.db and its log lines. */
  readonly name: string;
  /** Schema steps of this feature's own tables, applied in order, append only. */
  readonly migrations?: readonly string[];
  /** Set by the one feature that owned mesh.db's schema before per-feature tracking. */
  readonly adoptsUserVersion?: boolean;
  /** Services of other features this one uses: their providers are built and started first. */
  readonly needs?: readonly ServiceKey<unknown>[];
  /** Services this feature hands out while it is built. */
  readonly provides?: readonly ServiceKey<unknown>[];
  /** Build the feature with real services, once mesh.db is open and migrated. */
  build?(context: FeatureContext): FeatureParts;
  /*
   * The earlier shape, kept working through an adapter for the features not yet converted to
   * `build`: `init` once mesh.db is open, then `routes`, `start` and `stop` with the context.
   */
  /** The earlier shape (see above); use `build`. */
  init?(context: FeatureContext): void;
  /** The earlier shape (see above); use `build`. */
  routes?(app: FastifyInstance, context: FeatureContext): void;
  /** The earlier shape (see above); use `build`. */
  start?(context: FeatureContext): Promise<void> | void;
  /** The earlier shape (see above); use `build`. */
  stop?(): Promise<void> | void;
}
