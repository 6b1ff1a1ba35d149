import type { Clock, Timer } from '@openlegion/infra/clock';
import type { Database } from '@openlegion/infra/sqlite';
import type { Logger } from 'pino';
import { firstRun, nextRunAfter, parseSchedule } from '../../config/index.js';
import type { LoadedWorkflow } from '../definition/workflow-file.js';
import type { RunRequest } from '../engine/workflow-engine.js';
import type { WorkflowEvent, WorkflowEvents } from '../workflow-ports.js';
import { WorkflowCronRepository } from './workflow-cron-repository.js';

/** Re-check at least this often, so that a clock jump never strands a schedule. */
const MAX_SLEEP_MS = 60_000;

export interface WorkflowTriggersDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  events?: WorkflowEvents;
  startRun(request: RunRequest): Promise<unknown>;
}

/**
 * Starts runs of workflows whose file has a `trigger`: on each event of a pub/sub topic, or on a
 * schedule kept in mesh.db (a slot missed while the host was down runs once when it is back).
 * Each firing has a key, so that firing twice starts one run.
 */
export class WorkflowTriggers {
  readonly #deps: WorkflowTriggersDeps;
  readonly #cron: WorkflowCronRepository;
  readonly #unsubscribes: (() => void)[] = [];
  /** The triggered workflows as their files read at start: triggers follow the files the host started with. */
  readonly #workflows = new Map<string, LoadedWorkflow>();
  #timer: Timer | undefined;
  #stopped = false;
  #ticking: Promise<void> = Promise.resolve();

  constructor(deps: WorkflowTriggersDeps) {
    this.#deps = deps;
    this.#cron = new WorkflowCronRepository(deps.db);
  }

  start(workflows: readonly LoadedWorkflow[]): void {
    const now = this.#deps.clock.now();
    const scheduled: string[] = [];
    for (const workflow of workflows) {
      const { trigger, name } = workflow.definition;
      if (trigger) this.#workflows.set(name, workflow);
      if (trigger?.cron) {
        const schedule = parseSchedule(trigger.cron, trigger.timezone);
        this.#cron.upsert(
          name,
          trigger.cron,
          trigger.timezone ?? null,
          firstRun(schedule, now, name) ?? null,
        );
        scheduled.push(name);
      } else if (trigger?.topic) {
        if (!this.#deps.events) {
          this.#deps.logger.warn(
            { workflow: name },
            'topic trigger ignored: the host has no pub/sub wired to workflows',
          );
          continue;
        }
        this.#unsubscribes.push(
          this.#deps.events.subscribe(trigger.topic, (event) => this.#onEvent(name, event)),
        );
      }
    }
    this.#cron.removeExcept(scheduled);
    this.#rearm();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    for (const unsubscribe of this.#unsubscribes.splice(0)) unsubscribe();
    await this.#ticking;
  }

  #onEvent(name: string, event: WorkflowEvent): void {
    void this.#fire(
      name,
      event.id === undefined ? undefined : `topic:${name}:${event.topic}:${event.id}`,
      (workflow) => {
        const payload = event.payload;
        // Payload fields named like inputs fill them; the rest take their defaults.
        const inputs =
          typeof payload === 'object' && payload !== null && !Array.isArray(payload)
            ? Object.fromEntries(
                Object.entries(payload).filter(([key]) => Object.hasOwn(workflow.definition.inputs, key)),
              )
            : {};
        return { workflow, inputs, trigger: { kind: 'topic' as const, topic: event.topic, payload } };
      },
    );
  }

  async #fire(
    name: string,
    triggerKey: string | undefined,
    request: (workflow: LoadedWorkflow) => RunRequest,
  ): Promise<void> {
    const workflow = this.#workflows.get(name);
    if (!workflow) return;
    try {
      await this.#deps.startRun({ ...request(workflow), ...(triggerKey ? { triggerKey } : {}) });
    } catch (error) {
      this.#deps.logger.warn({ err: error, workflow: name }, 'a triggered workflow run did not start');
    }
  }

  #rearm(): void {
    this.#timer?.cancel();
    if (this.#stopped) return;
    const earliest = this.#cron.earliest();
    if (earliest === undefined) return;
    const delay = Math.min(MAX_SLEEP_MS, Math.max(0, earliest - this.#deps.clock.now()));
    this.#timer = this.#deps.clock.setTimeout(() => {
      this.#ticking = this.#tick();
    }, delay);
  }

  async #tick(): Promise<void> {
    const now = this.#deps.clock.now();
    for (const entry of this.#cron.due(now)) {
      const slot = entry.nextRunAt ?? now;
      await this.#fire(entry.workflow, `cron:${entry.workflow}:${slot}`, (workflow) => ({
        workflow,
        trigger: { kind: 'cron' },
      }));
      const next = nextRunAfter(
        parseSchedule(entry.schedule, entry.timezone ?? undefined),
        now,
        entry.workflow,
      );
      this.#cron.setNext(entry.workflow, next ?? null);
    }
    this.#rearm();
  }
}
