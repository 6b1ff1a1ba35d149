import type { Clock } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { MeshConfig } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { SecretSource } from '../secrets/index.js';

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
}

/**
 * One host capability (vault, llm, blackboard, lanes, cron, ...), in its own folder, in one shape.
 * The composition root lists the features; it opens the database and applies every feature's
 * migrations, runs every `init`, builds the HTTP app from every feature's routes, runs `start` in list order and
 * `stop` in reverse (also after a failed or interrupted start, for the features that started).
 *
 * Dependencies between features are explicit: a feature's factory takes the other features (or
 * the services they expose) it needs, so the list order follows the dependency order.
 *
 * @example
 * export function blackboardFeature(): HostFeature & { board: () => Blackboard } {
 *   let board: Blackboard | undefined;
 *   return {
 *     name: 'blackboard',
 *     migrations: BLACKBOARD_MIGRATIONS,
 *     routes: (app, context) => registerBlackboardRoutes(app, () => (board ??= new Blackboard(context.db))),
 *     start: (context) => { board ??= new Blackboard(context.db); },
 *     board: () => board ?? fail(),
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
  /**
   * Synchronous setup once mesh.db is open and migrated: create the repositories and services
   * that routes and other features use. Runs for every feature before any routes or start.
   */
  init?(context: FeatureContext): void;
  /**
   * Register HTTP routes. Called once when the app is built, which may happen while features
   * later in the list are still starting: handlers read feature state at request time.
   * Each route declares who may call it: `{ config: { auth: 'agent' | 'operator' | ... } }`.
   */
  routes?(app: FastifyInstance, context: FeatureContext): void;
  /** Bring the feature up (timers, listeners, agents). A throw fails the host's start. */
  start?(context: FeatureContext): Promise<void> | void;
  /** Bring it down; idempotent. Errors are logged, and the other features still stop. */
  stop?(): Promise<void> | void;
}
