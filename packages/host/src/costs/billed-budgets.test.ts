import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { meshConfigSchema, OpenLegionError } from '@openlegion/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BillingOwners } from './billing-owners.js';
import { BudgetGate } from './budget-gate.js';
import { COST_MIGRATIONS, UsageLog, type UsageRecord } from './usage-log.js';

const NOW = Date.UTC(2026, 0, 10, 12);

/** `lead` pays $1 a day; its temporary agent `researcher-ab12` has its template's own cap of $0.30. */
const config = meshConfigSchema.parse({
  llm: { providers: { openai: {} } },
  agents: {
    lead: { budget: { daily_usd: 1 } },
    other: {},
    'researcher-ab12': { budget: { daily_usd: 0.3 } },
    'digest-cd34': { budget: { daily_usd: 0.2 } },
  },
});

function refusal(reserve: () => unknown): OpenLegionError {
  try {
    reserve();
  } catch (error) {
    if (error instanceof OpenLegionError) return error;
    throw error;
  }
  throw new Error('the reservation was not refused');
}

const usage = (agent: string, billedTo: string, usd: number, model = 'openai/gpt'): UsageRecord => ({
  at: NOW,
  agent,
  billed_to: billedTo,
  model,
  prompt_tokens: 10,
  completion_tokens: 5,
  cached_tokens: 0,
  cost_usd: usd,
  request_id: 'req',
  trace_id: null,
  estimated: 0,
});

describe('budgets of temporary agents spawned by an agent', () => {
  let db: ReturnType<typeof openDatabase>;
  let log: UsageLog;
  let owners: BillingOwners;
  let gate: BudgetGate;

  beforeEach(() => {
    db = openDatabase(':memory:');
    migrate(db, [{ feature: 'costs', steps: COST_MIGRATIONS }]);
    log = new UsageLog(db);
    owners = new BillingOwners(db);
    gate = new BudgetGate(
      config,
      log,
      () => NOW,
      (agent) => owners.ownerOf(agent),
    );
    owners.assign('researcher-ab12', 'lead', NOW);
  });
  afterEach(async () => {
    await log.close();
    db.close();
  });

  it("holds a temporary agent's call against its spawner's budget while it runs", () => {
    const held = gate.reserve('researcher-ab12', 0.25);
    expect(gate.inFlight('lead')).toBe(0.25);
    expect(gate.inFlight('researcher-ab12')).toBe(0.25);
    const error = refusal(() => gate.reserve('lead', 0.8));
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.message).toBe(
      'agent "lead": this call could cost up to $0.8000, but its daily budget of $1.0000 has $0.7500 left ($0.0000 spent, $0.2500 held by calls in flight); it resets at 2026-01-11T00:00:00.000Z',
    );
    gate.release(held);
    expect(gate.inFlight('lead')).toBe(0);
    expect(gate.inFlight('researcher-ab12')).toBe(0);
    gate.release(gate.reserve('lead', 0.8));
  });

  it("refuses a temporary agent's call once its spawner's budget is spent, naming the spawner's budget", async () => {
    await log.record(usage('lead', 'lead', 0.9));
    const error = refusal(() => gate.reserve('researcher-ab12', 0.2));
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.message).toBe(
      'agent "researcher-ab12" is a temporary agent that draws on agent "lead"\'s budget: this call could cost up to $0.2000, but the daily budget of agent "lead" of $1.0000 has $0.1000 left ($0.9000 spent, $0.0000 held by calls in flight); it resets at 2026-01-11T00:00:00.000Z',
    );
    expect(error.details).toEqual({
      agent: 'researcher-ab12',
      billed_to: 'lead',
      budget: 'daily',
      limit_usd: 1,
      spent_usd: 0.9,
      in_flight_usd: 0,
      resets_at: '2026-01-11T00:00:00.000Z',
    });
  });

  it("counts a temporary agent's recorded spend in its spawner's totals, so the spawner cannot spend it again", async () => {
    // As the cost meter does: the gate counts it, then the log writes it.
    const record = usage('researcher-ab12', 'lead', 0.28);
    gate.recorded(record);
    await log.record(record);
    // Another fresh gate reads the same from the log: the spend is persisted under its payer.
    const fresh = new BudgetGate(
      config,
      log,
      () => NOW,
      (agent) => owners.ownerOf(agent),
    );
    for (const each of [gate, fresh]) {
      expect(refusal(() => each.reserve('lead', 0.8)).details).toMatchObject({ spent_usd: 0.28 });
      each.release(each.reserve('lead', 0.7));
    }
    // Once it left, its own totals are let go and read from the log again if asked; its spawner's stay.
    gate.forget('researcher-ab12');
    expect(refusal(() => gate.reserve('researcher-ab12', 0.05)).details).toMatchObject({
      budget: 'daily',
      limit_usd: 0.3,
      spent_usd: 0.28,
    });
    expect(refusal(() => gate.reserve('lead', 0.8)).details).toMatchObject({ spent_usd: 0.28 });
    expect(gate.spentAgainst('lead', NOW - 1000)).toBe(0.28);
    expect(gate.spentAgainst('researcher-ab12', NOW - 1000)).toBe(0.28);
  });

  it("also holds a temporary agent to its template's own budget when its spawner has room", async () => {
    await log.record(usage('researcher-ab12', 'lead', 0.2));
    const error = refusal(() => gate.reserve('researcher-ab12', 0.15));
    expect(error.message).toBe(
      'agent "researcher-ab12": this call could cost up to $0.1500, but its daily budget of $0.3000 has $0.1000 left ($0.2000 spent, $0.0000 held by calls in flight); it resets at 2026-01-11T00:00:00.000Z',
    );
    expect(error.details).not.toHaveProperty('billed_to');
    // Its spawner's own call still fits: $0.20 of its $1 is spent.
    gate.release(gate.reserve('lead', 0.8));
  });

  it("bills a temporary agent of the operator or cron to itself, under its template's budget alone", () => {
    owners.assign('digest-cd34', null, NOW);
    expect(owners.ownerOf('digest-cd34')).toBe('digest-cd34');
    gate.reserve('digest-cd34', 0.15);
    expect(gate.inFlight('lead')).toBe(0);
    expect(refusal(() => gate.reserve('digest-cd34', 0.1)).message).toMatch(
      /^agent "digest-cd34": this call could cost up to \$0\.1000, but its daily budget of \$0\.2000 has \$0\.0500 left/,
    );
  });
});

describe('BillingOwners', () => {
  it('keeps who pays for a temporary agent in mesh.db, readable after it left the config, and lets a reused name start afresh', () => {
    const db = openDatabase(':memory:');
    migrate(db, [{ feature: 'costs', steps: COST_MIGRATIONS }]);
    new BillingOwners(db).assign('researcher-ab12', 'lead', NOW);
    const later = new BillingOwners(db);
    expect(later.ownerOf('researcher-ab12')).toBe('lead');
    expect(later.ownerOf('lead')).toBe('lead');
    later.forget('researcher-ab12');
    expect(later.ownerOf('researcher-ab12')).toBe('lead');
    // A temporary agent of a temporary agent is billed to the agent at the root.
    later.assign('digest-cd34', 'researcher-ab12', NOW);
    expect(later.ownerOf('digest-cd34')).toBe('lead');
    later.assign('researcher-ab12', null, NOW + 1);
    expect(new BillingOwners(db).ownerOf('researcher-ab12')).toBe('researcher-ab12');
    db.close();
  });
});

describe('UsageLog spend by payer', () => {
  it("lists a spawner's own rows first, then its temporary agents' beside it, and finds both by the spawner's name", async () => {
    const db = openDatabase(':memory:');
    migrate(db, [{ feature: 'costs', steps: COST_MIGRATIONS }]);
    const log = new UsageLog(db);
    await log.record(usage('researcher-ab12', 'lead', 0.25));
    await log.record(usage('lead', 'lead', 0.5));
    await log.record(usage('other', 'other', 0.125));
    await log.record(usage('researcher-ab12', 'lead', 0.25));
    const row = (agent: string, billedTo: string, calls: number, usd: number) => ({
      agent,
      billed_to: billedTo,
      model: 'openai/gpt',
      calls,
      prompt_tokens: 10 * calls,
      completion_tokens: 5 * calls,
      cost_usd: usd,
    });
    expect(log.spend(0)).toEqual([
      row('lead', 'lead', 1, 0.5),
      row('researcher-ab12', 'lead', 2, 0.5),
      row('other', 'other', 1, 0.125),
    ]);
    expect(log.spend(0, 'lead')).toEqual([
      row('lead', 'lead', 1, 0.5),
      row('researcher-ab12', 'lead', 2, 0.5),
    ]);
    expect(log.spend(0, 'researcher-ab12')).toEqual([row('researcher-ab12', 'lead', 2, 0.5)]);
    expect(log.billed('lead', 0)).toBe(1);
    expect(log.spent('lead', 0)).toBe(0.5);
    await log.close();
    db.close();
  });

  it('bills rows written before the billed_to column to their own agent', () => {
    const db = openDatabase(':memory:');
    migrate(db, [{ feature: 'costs', steps: COST_MIGRATIONS.slice(0, 1) }]);
    db.prepare(
      `INSERT INTO llm_usage (at, agent, model, prompt_tokens, completion_tokens, cached_tokens, cost_usd, request_id)
       VALUES (1, 'lead', 'openai/gpt', 1, 1, 0, 0.5, 'r')`,
    ).run();
    migrate(db, [{ feature: 'costs', steps: COST_MIGRATIONS }]);
    expect(new UsageLog(db).billed('lead', 0)).toBe(0.5);
    db.close();
  });
});
