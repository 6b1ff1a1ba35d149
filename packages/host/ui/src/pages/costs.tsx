import type { SpendRow } from '@openlegion/protocol';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { usd } from '../api';
import { ErrorBox, Section } from '../components';
import { useLiveRefresh } from '../live';
import { useLoad } from '../use-load';

interface Budget {
  agent: string;
  daily_usd: number | null;
  monthly_usd: number | null;
  spent_today_usd: number;
  spent_month_usd: number;
  in_flight_usd: number;
}
interface Series {
  since: number;
  bucket_ms: number;
  points: { at: number; agent: string; model: string; cost_usd: number }[];
}

const COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be185d', '#4d7c0f'];

/** Spend per agent and model over a period (a chart, cumulative), and each budget's use. */
export function CostsPage() {
  const costs = useLoad<{ today: SpendRow[]; month: SpendRow[]; budgets: Budget[] }>('/api/costs');
  const [hours, setHours] = useState(24);
  const series = useLoad<Series>(`/ui/api/costs/series?hours=${hours}`);
  useLiveRefresh(['usage'], () => {
    costs.reload();
    series.reload();
  });
  return (
    <>
      <Section title="Spend over time">
        <label for="cost-span">Period</label>{' '}
        <select
          id="cost-span"
          value={hours}
          onChange={(event) => setHours(Number(event.currentTarget.value))}
        >
          <option value={1}>last hour</option>
          <option value={24}>last 24 hours</option>
          <option value={168}>last 7 days</option>
          <option value={744}>last 31 days</option>
        </select>
        <ErrorBox error={series.error} />
        {series.data ? <SpendChart series={series.data} /> : <p>Loading…</p>}
      </Section>
      <Section title="Budgets">
        <ErrorBox error={costs.error} />
        <table>
          <thead>
            <tr>
              <th>agent</th>
              <th>today</th>
              <th>daily budget</th>
              <th>this month</th>
              <th>monthly budget</th>
            </tr>
          </thead>
          <tbody>
            {(costs.data?.budgets ?? []).map((budget) => (
              <tr key={budget.agent}>
                <td>{budget.agent}</td>
                <td>{usd(budget.spent_today_usd)}</td>
                <td>
                  <Gauge
                    spent={budget.spent_today_usd}
                    limit={budget.daily_usd}
                    label={`${budget.agent} daily`}
                  />
                </td>
                <td>{usd(budget.spent_month_usd)}</td>
                <td>
                  <Gauge
                    spent={budget.spent_month_usd}
                    limit={budget.monthly_usd}
                    label={`${budget.agent} monthly`}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Today by model">
        <table>
          <thead>
            <tr>
              <th>agent</th>
              <th>model</th>
              <th>calls</th>
              <th>tokens in / out</th>
              <th>cost</th>
            </tr>
          </thead>
          <tbody>
            {(costs.data?.today ?? []).map((row) => (
              <tr key={`${row.billed_to ?? row.agent}/${row.agent}/${row.model}`}>
                {/* A temporary agent's spend shows under the agent that spawned it and pays for it. */}
                <td>
                  {row.billed_to === undefined || row.billed_to === row.agent
                    ? row.agent
                    : `↳ ${row.agent} (for ${row.billed_to})`}
                </td>
                <td>{row.model}</td>
                <td>{row.calls}</td>
                <td>
                  {row.prompt_tokens} / {row.completion_tokens}
                </td>
                <td>{usd(row.cost_usd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </>
  );
}

function Gauge({ spent, limit, label }: { spent: number; limit: number | null; label: string }) {
  if (limit === null) return <span class="muted">none</span>;
  const share = limit > 0 ? Math.min(1, spent / limit) : 1;
  return (
    <span class="gauge">
      <meter min={0} max={limit} value={spent} high={limit * 0.8} aria-label={`${label} budget used`} />{' '}
      {Math.round(share * 100)}% of {usd(limit)}
    </span>
  );
}

/** Cumulative spend per agent/model, one line each, drawn by uPlot on a canvas. */
function SpendChart({ series }: { series: Series }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const keys = [...new Set(series.points.map((point) => `${point.agent} · ${point.model}`))];
    const start = series.since - (series.since % series.bucket_ms);
    const times: number[] = [];
    for (let at = start; at <= Date.now(); at += series.bucket_ms) times.push(at / 1000);
    const lines = keys.map((key) => {
      const perBucket = times.map(() => 0);
      for (const point of series.points) {
        const index = Math.floor((point.at - start) / series.bucket_ms);
        if (`${point.agent} · ${point.model}` === key && index >= 0 && index < perBucket.length)
          perBucket[index] = (perBucket[index] ?? 0) + point.cost_usd;
      }
      let total = 0;
      return perBucket.map((cost) => {
        total += cost;
        return total;
      });
    });
    const plot = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height: 260,
        series: [
          {},
          ...keys.map((key, index) => ({
            label: key,
            stroke: COLOURS[index % COLOURS.length] ?? '#000',
            width: 2,
            points: { show: false },
            value: (_: uPlot, value: number | null) => usd(value),
          })),
        ],
        axes: [{}, { values: (_: uPlot, ticks: number[]) => ticks.map((tick) => usd(tick)), size: 70 }],
      },
      [times, ...lines],
      element,
    );
    const resize = () => plot.setSize({ width: Math.max(280, element.clientWidth), height: 260 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [series]);
  return (
    <div ref={box} class="chart" role="img" aria-label="Cumulative LLM spend per agent and model">
      {series.points.length === 0 ? <p class="muted">No LLM calls in this period.</p> : null}
    </div>
  );
}
