/**
 * Shapes of operator API answers (`/api/*`) that the host writes and the CLI reads. The host builds
 * them from its own stores, so they are plain types here, not parsed schemas.
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
  agent: string;
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
