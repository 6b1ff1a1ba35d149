import { z } from 'zod';
import { pendingApprovalSchema } from './approval.js';
import { agentInfoSchema } from './host-api.js';
import { blackboardEntrySchema } from './mesh-api.js';
import { workflowListingSchema, workflowRunSummarySchema, workflowRunViewSchema } from './workflow-run.js';

/**
 * Shapes of operator API answers (`/api/*`) that the host writes and the CLI reads. The host builds
 * them from its own stores as the plain types below; the CLI parses each answer with the schema
 * after them (`...AnswerSchema`), never with a cast. Answer schemas are loose (`z.looseObject`):
 * fields a newer host adds pass through to `--json` output instead of failing an older CLI.
 */

/** One step of a piece of work's life: where it entered, each lane move, each call an agent made. */
export interface TraceEvent {
  trace_id: string;
  at: number;
  /** `lane.queued`, `lane.running`, `lane.done`, `http POST /v1/chat/completions`, … */
  hop: string;
  agent: string | null;
  detail: Record<string, unknown>;
}

/** A trace as `GET /api/traces` lists it. */
export interface TraceSummary {
  trace_id: string;
  started_at: number;
  ended_at: number;
  hops: number;
  agents: string[];
  /** The first hop: where the work entered. */
  entry: string;
}

/** LLM spend of one agent on one model over a period. */
export interface SpendRow {
  /** The agent that made the calls. */
  agent: string;
  /**
   * Whose budget paid: `agent` itself, or the agent that spawned it (a temporary agent of fleet
   * spawn draws on its spawner's budget). Absent from hosts older than it.
   */
  billed_to?: string;
  model: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

/** An agent's budgets and what counts against them now. */
export interface BudgetRow {
  agent: string;
  daily_usd: number | null;
  monthly_usd: number | null;
  spent_today_usd: number;
  spent_month_usd: number;
  /** Reserved by calls still running. */
  in_flight_usd: number;
}

/** `GET /api/costs`: spend per agent and model, today and this month (UTC), and the budgets. */
export interface CostsReport {
  today: SpendRow[];
  month: SpendRow[];
  budgets: BudgetRow[];
}

/** How a new message meets the agent's running turn and its queue (`mode` of the operator chat). */
export const LANE_MODES = ['followup', 'steer', 'collect', 'interrupt'] as const;
export type LaneMode = (typeof LANE_MODES)[number];

const traceEventSchema = z.looseObject({
  trace_id: z.string(),
  at: z.number(),
  hop: z.string(),
  agent: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
}) satisfies z.ZodType<TraceEvent>;
const traceSummarySchema = z.looseObject({
  trace_id: z.string(),
  started_at: z.number(),
  ended_at: z.number(),
  hops: z.number(),
  agents: z.array(z.string()),
  entry: z.string(),
}) satisfies z.ZodType<TraceSummary>;
/** `GET /api/traces/:id`. */
export const traceEventsAnswerSchema = z.looseObject({ events: z.array(traceEventSchema) });
/** `GET /api/traces`. */
export const traceSummariesAnswerSchema = z.looseObject({ traces: z.array(traceSummarySchema) });

const spendRowSchema = z.looseObject({
  agent: z.string(),
  billed_to: z.string().optional(),
  model: z.string(),
  calls: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost_usd: z.number(),
}) satisfies z.ZodType<SpendRow>;
const budgetRowSchema = z.looseObject({
  agent: z.string(),
  daily_usd: z.number().nullable(),
  monthly_usd: z.number().nullable(),
  spent_today_usd: z.number(),
  spent_month_usd: z.number(),
  in_flight_usd: z.number(),
}) satisfies z.ZodType<BudgetRow>;
/** `GET /api/costs`. */
export const costsAnswerSchema = z.looseObject({
  today: z.array(spendRowSchema),
  month: z.array(spendRowSchema),
  budgets: z.array(budgetRowSchema),
}) satisfies z.ZodType<CostsReport>;

/** `GET /api/blackboard/entries`. */
export const blackboardEntriesAnswerSchema = z.looseObject({ entries: z.array(blackboardEntrySchema) });
/** `GET` and `PUT /api/blackboard/entries/:key`. */
export const blackboardEntryAnswerSchema = z.looseObject({ entry: blackboardEntrySchema });

/** `GET /api/lanes`: the fields the CLI shows of each lane item. */
export const laneItemsAnswerSchema = z.looseObject({
  items: z.array(
    z.looseObject({
      id: z.number(),
      state: z.string(),
      mode: z.string(),
      source: z.string(),
      message: z.string(),
    }),
  ),
});

/** One scheduled job as `GET /api/cron` lists it. */
export const cronJobViewSchema = z.looseObject({
  id: z.string(),
  agent: z.string(),
  schedule: z.string(),
  timezone: z.string().nullable(),
  heartbeat: z.boolean(),
  paused: z.boolean(),
  nextRunAt: z.number().nullable(),
  lastRunAt: z.number().nullable(),
  lastResult: z.string().nullable(),
  runs: z.number(),
});
export type CronJobView = z.infer<typeof cronJobViewSchema>;
/** `GET /api/cron`. */
export const cronJobsAnswerSchema = z.looseObject({ jobs: z.array(cronJobViewSchema) });

/** `GET /api/llm/health`: each configured model, ok or cooling down. */
export const llmHealthAnswerSchema = z.looseObject({
  fallback_strategy: z.string(),
  models: z.array(
    z.looseObject({
      model: z.string(),
      state: z.string(),
      cooldown_until: z.string().nullable(),
      last_failure: z.string().nullable(),
    }),
  ),
});

/** `POST /api/agents/:agent/restart`: the agent after the restart, null when it is gone. */
export const agentRestartAnswerSchema = z.looseObject({ agent: agentInfoSchema.nullable() });

/** `PUT /api/agents/:agent/workspace/:file`: what the host stored. */
export const instructionsStoredAnswerSchema = z.looseObject({ bytes: z.number(), version: z.number() });

/** `POST /api/agents/:agent/memory/search`: the fields the CLI shows of each hit. */
export const memorySearchAnswerSchema = z.looseObject({
  hits: z.array(
    z.looseObject({
      score: z.number(),
      item: z.looseObject({ id: z.number(), category: z.string(), abstract: z.string() }),
    }),
  ),
  mode: z.string(),
  strategy: z.string(),
});

/** `GET /api/agents/:agent/memory/items`: the fields the CLI shows of each item. */
export const memoryItemsAnswerSchema = z.looseObject({
  items: z.array(
    z.looseObject({ id: z.number(), category: z.string(), scope: z.string(), abstract: z.string() }),
  ),
});

/** `GET /api/agents/:agent/memory/stats`: counts the CLI prints as they come. */
export const memoryStatsAnswerSchema = z.looseObject({});

/** `GET /api/agents/:agent/memory/doctor`: a report whose `ok: false` fails the command. */
export const memoryDoctorAnswerSchema = z.looseObject({ ok: z.boolean().optional() });

/** `/api/agents/:agent/lcm/grep|describe|expand`: the lcm answer as the agent's tools give it. */
export const lcmAnswerSchema = z.looseObject({ text: z.string() });

/** `GET /api/workflows`. */
export const workflowListingsAnswerSchema = z.looseObject({ workflows: z.array(workflowListingSchema) });
/** `GET /api/workflows/runs/:id`, and each call that starts, decides or cancels a run. */
export const workflowRunAnswerSchema = z.looseObject({ run: workflowRunViewSchema });
/** `GET /api/workflows/runs`. */
export const workflowRunsAnswerSchema = z.looseObject({ runs: z.array(workflowRunSummarySchema) });
/** `GET /api/workflows/approvals` (workflow steps only) and `GET /api/approvals` (all kinds). */
export const pendingApprovalsAnswerSchema = z.looseObject({ approvals: z.array(pendingApprovalSchema) });
