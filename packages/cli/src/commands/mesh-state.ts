import {
  blackboardEntriesAnswerSchema,
  blackboardEntryAnswerSchema,
  costsAnswerSchema,
  traceEventsAnswerSchema,
  traceSummariesAnswerSchema,
} from '@openlegion/protocol';
import { InvalidArgumentError } from 'commander';
import type { CliOutput } from '../cli-output.js';
import { type HostConnection, requestDone, requestJson } from '../host-connection.js';

const entryPath = (key: string) =>
  `/api/blackboard/entries/${key.split('/').map(encodeURIComponent).join('/')}`;
const oneLine = (value: unknown, max = 80) => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/** The newest traces, one line each; or one trace, a line per hop with its time since the first. */
export async function showTraces(
  host: HostConnection,
  output: CliOutput,
  id?: string,
  json = false,
): Promise<void> {
  if (id) {
    const { events } = await requestJson(
      host,
      'GET',
      `/api/traces/${encodeURIComponent(id)}`,
      traceEventsAnswerSchema,
    );
    if (json) return output.out(`${JSON.stringify(events, null, 2)}\n`);
    const first = events[0]?.at ?? 0;
    output.out(`trace ${id}: ${events.length} hops\n`);
    for (const event of events)
      output.out(
        `  +${String(event.at - first).padStart(6)} ms  ${nestedHop(event).padEnd(34)} ${(event.agent ?? '-').padEnd(12)} ${oneLine(event.detail, 60)}\n`,
      );
    return;
  }
  const { traces } = await requestJson(host, 'GET', '/api/traces?limit=20', traceSummariesAnswerSchema);
  if (json) return output.out(`${JSON.stringify(traces, null, 2)}\n`);
  if (traces.length === 0) return output.out('no traces yet\n');
  for (const trace of traces)
    output.out(
      `${trace.trace_id}  ${new Date(trace.started_at).toISOString()}  ${trace.hops} hops  ${trace.ended_at - trace.started_at} ms  ${trace.agents.join(',')}  (${trace.entry})\n`,
    );
}

/** `list [prefix]`, `get KEY`, `set KEY JSON`, `rm KEY` on the blackboard, as the operator. */
export async function blackboardAction(
  host: HostConnection,
  output: CliOutput,
  action: string,
  key = '',
  value?: string,
): Promise<void> {
  if (action === 'list') {
    const { entries } = await requestJson(
      host,
      'GET',
      `/api/blackboard/entries?limit=200&prefix=${encodeURIComponent(key)}`,
      blackboardEntriesAnswerSchema,
    );
    if (entries.length === 0) return output.out(`no entries${key ? ` under "${key}"` : ''}\n`);
    for (const entry of entries)
      output.out(`${entry.key}  v${entry.version}  ${entry.updated_by}  ${oneLine(entry.value)}\n`);
    return;
  }
  if (!key) throw new InvalidArgumentError(`blackboard ${action} needs a KEY`);
  if (action === 'get') {
    const { entry } = await requestJson(host, 'GET', entryPath(key), blackboardEntryAnswerSchema);
    return output.out(
      `${JSON.stringify(entry.value, null, 2)}\n(v${entry.version} by ${entry.updated_by})\n`,
    );
  }
  if (action === 'set') {
    if (value === undefined) throw new InvalidArgumentError('blackboard set needs KEY and a JSON VALUE');
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = value; // plain text is kept as a JSON string
    }
    const { entry } = await requestJson(host, 'PUT', entryPath(key), blackboardEntryAnswerSchema, {
      value: parsed,
    });
    return output.out(`${entry.key}: v${entry.version}\n`);
  }
  if (action === 'rm') {
    await requestDone(host, 'DELETE', entryPath(key));
    return output.out(`${key}: deleted\n`);
  }
  throw new InvalidArgumentError(`unknown blackboard action "${action}" (list, get, set, rm)`);
}

/** Spend per agent and model, today and this month, and each agent's budgets. */
export async function showCosts(
  host: HostConnection,
  output: CliOutput,
  agent?: string,
  json = false,
): Promise<void> {
  const query = agent ? `?agent=${encodeURIComponent(agent)}` : '';
  const costs = await requestJson(host, 'GET', `/api/costs${query}`, costsAnswerSchema);
  if (json) return output.out(`${JSON.stringify(costs, null, 2)}\n`);
  const money = (value: number) => `$${value.toFixed(4)}`;
  for (const [label, rows] of [
    ['today', costs.today],
    ['this month', costs.month],
  ] as const) {
    output.out(`${label}:\n`);
    if (rows.length === 0) output.out('  no LLM calls or web searches\n');
    for (const [index, row] of rows.entries()) {
      const payer = spendPayer(row, rows[index - 1]);
      if (payer) output.out(`  ${payer}\n`);
      const name = spendName(row);
      output.out(
        // Web searches (`search/<provider>`) are priced per request: they have no tokens to show.
        row.model.startsWith('search/')
          ? `  ${name.padEnd(14)} ${row.model.padEnd(32)} ${String(row.calls).padStart(5)} searches ${''.padStart(20)}  ${money(row.cost_usd)}\n`
          : `  ${name.padEnd(14)} ${row.model.padEnd(32)} ${String(row.calls).padStart(5)} calls ${String(row.prompt_tokens).padStart(9)} in ${String(row.completion_tokens).padStart(8)} out  ${money(row.cost_usd)}\n`,
      );
    }
  }
  const limited = costs.budgets.filter((row) => row.daily_usd !== null || row.monthly_usd !== null);
  if (limited.length > 0) output.out('budgets:\n');
  for (const row of limited)
    output.out(
      `  ${row.agent.padEnd(14)} today ${money(row.spent_today_usd)}${row.daily_usd === null ? '' : ` of ${money(row.daily_usd)}`}  month ${money(row.spent_month_usd)}${row.monthly_usd === null ? '' : ` of ${money(row.monthly_usd)}`}\n`,
    );
}

/**
 * A spend row's name: a temporary agent paid for by the agent that spawned it is shown under that
 * agent (the host lists each payer's own rows first, then its temporary agents'), as a subagent's
 * calls are in traces.
 */
export function spendName(row: { agent: string; billed_to?: string | undefined }): string {
  return row.billed_to === undefined || row.billed_to === row.agent ? row.agent : `  ↳ ${row.agent}`;
}

/** The payer's name on a line of its own, when its temporary agents' rows have no row of its own above them. */
export function spendPayer(
  row: { agent: string; billed_to?: string | undefined },
  previous: { agent: string; billed_to?: string | undefined } | undefined,
): string | undefined {
  if (row.billed_to === undefined || row.billed_to === row.agent) return undefined;
  const previousPayer = previous && (previous.billed_to ?? previous.agent);
  return previousPayer === row.billed_to ? undefined : row.billed_to;
}

/** A subagent's call indented under its agent by depth and named by its id: the trace's tree. */
export function nestedHop(event: { hop: string; detail: unknown }): string {
  const detail = event.detail as { subagent?: unknown; depth?: unknown } | null;
  if (typeof detail?.subagent !== 'string' || typeof detail.depth !== 'number') return event.hop;
  return `${'  '.repeat(detail.depth)}↳ ${detail.subagent.split('/').at(-1)} ${event.hop}`;
}
