import type { TraceEvent, TraceSummary } from '@openlegion/protocol';
import { time } from '../api';
import { ErrorBox, Section } from '../components';
import { useLiveRefresh } from '../live';
import { useLoad } from '../use-load';

/** Recent traces; one opens as a waterfall of its hops (lane, agent, LLM, mesh, egress). */
export function TracesPage({ id }: { id: string | undefined }) {
  return id ? <Waterfall id={id} /> : <TraceList />;
}

function TraceList() {
  const traces = useLoad<{ traces: TraceSummary[] }>('/api/traces');
  useLiveRefresh(['lane'], traces.reload, 1000);
  return (
    <Section title="Traces">
      <ErrorBox error={traces.error} />
      <ul class="log">
        {(traces.data?.traces ?? []).map((trace) => (
          <li key={trace.trace_id}>
            <a href={`#/traces/${encodeURIComponent(trace.trace_id)}`}>{trace.trace_id}</a>{' '}
            {time(trace.started_at)} · {trace.hops} hops · {trace.agents.join(', ')}{' '}
            <span class="muted">{trace.entry}</span>
          </li>
        ))}
      </ul>
    </Section>
  );
}

function laneOf(hop: string): string {
  if (hop.startsWith('lane')) return 'lane';
  if (hop.includes('/v1/chat') || hop.startsWith('llm')) return 'llm';
  if (hop.startsWith('egress')) return 'egress';
  if (hop.startsWith('agent') || hop.startsWith('tool')) return 'agent';
  return 'mesh';
}

/**
 * Where a hop's bar starts and ends: a call that reports its time (`detail.ms`) ends at its hop;
 * a lane item's queued and running hops last until its next lane hop; anything else is a moment.
 */
function extent(events: TraceEvent[], index: number): [number, number] {
  const event = events[index];
  if (!event) return [0, 0];
  const ms = event.detail.ms;
  if (typeof ms === 'number') return [event.at - ms, event.at];
  if (event.hop === 'lane.queued' || event.hop === 'lane.running') {
    const next = events
      .slice(index + 1)
      .find((later) => later.hop.startsWith('lane.') && later.agent === event.agent);
    if (next) return [event.at, next.at];
  }
  return [event.at, event.at];
}

function Waterfall({ id }: { id: string }) {
  const trace = useLoad<{ trace_id: string; events: TraceEvent[] }>(`/api/traces/${encodeURIComponent(id)}`);
  const events = trace.data?.events ?? [];
  const start = events.length === 0 ? 0 : Math.min(...events.map((_, index) => extent(events, index)[0]));
  const endAt = Math.max(start + 1, ...events.map((event) => event.at));
  // The time column counts from the first hop.
  const first = events[0]?.at ?? 0;
  const span = endAt - start;
  return (
    <Section title={`Trace ${id}`}>
      <p>
        <a href="#/traces">All traces</a>
      </p>
      <ErrorBox error={trace.error} />
      {trace.data ? (
        <ol class="waterfall" aria-label="Hops in time order">
          {events.map((event, index) => {
            const [from, to] = extent(events, index);
            const left = ((from - start) / span) * 100;
            const width = Math.max(0.8, ((to - from) / span) * 100);
            return (
              <li key={`${event.at}-${event.hop}-${index}`} class={`hop hop-${laneOf(event.hop)}`}>
                <span class="hop-name">
                  <span class="hop-lane">{laneOf(event.hop)}</span> {event.hop}
                  {event.agent ? <span class="muted"> · {event.agent}</span> : null}
                </span>
                <span class="hop-track">
                  <span
                    class="hop-bar"
                    style={{ left: `${left}%`, width: `${Math.min(width, 100 - left)}%` }}
                  />
                </span>
                <span class="hop-time">+{event.at - first} ms</span>
              </li>
            );
          })}
        </ol>
      ) : null}
    </Section>
  );
}
