import type { MeshStatus } from '@openlegion/protocol';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, postJson, time } from '../api';
import { ErrorBox, Section, StateBadge } from '../components';
import { useLiveRefresh } from '../live';
import { useLoad } from '../use-load';

interface LaneItemView {
  id: number;
  agent: string;
  kind: string;
  state: string;
  source: string;
  message: string;
  traceId: string;
  errorCode: string | null;
}

/** The agents, their state and restarts, what their lanes did last, and a restart button. */
export function FleetPage() {
  const status = useLoad<MeshStatus>('/api/status');
  const lanes = useLoad<{ items: LaneItemView[] }>('/api/lanes?limit=30');
  const [error, setError] = useState<string | undefined>(undefined);
  const [logsOf, setLogsOf] = useState<string | null>(null);
  useLiveRefresh(['agent'], status.reload);
  useLiveRefresh(['lane'], lanes.reload);
  const restart = async (agent: string) => {
    try {
      await postJson(`/api/agents/${encodeURIComponent(agent)}/restart`);
      status.reload();
    } catch (failure) {
      setError(failure instanceof ApiError ? `${failure.code}: ${failure.message}` : String(failure));
    }
  };
  return (
    <>
      <Section title="Agents">
        <ErrorBox error={status.error ?? error} />
        {status.data ? (
          <table class="agents">
            <thead>
              <tr>
                <th>agent</th>
                <th>state</th>
                <th>model</th>
                <th>restarts</th>
                <th>ready since</th>
                <th>
                  <span class="visually-hidden">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {status.data.agents.map((agent) => (
                <tr key={agent.name} data-agent={agent.name}>
                  <td>
                    <a href={`#/chat/${encodeURIComponent(agent.name)}`}>{agent.name}</a>
                    {agent.last_error ? <div class="muted">{agent.last_error}</div> : null}
                  </td>
                  <td>
                    <StateBadge state={agent.state} />
                  </td>
                  <td>{agent.model}</td>
                  <td>{agent.restarts}</td>
                  <td>{agent.ready_at ? time(Date.parse(agent.ready_at)) : '—'}</td>
                  <td class="buttons">
                    <button type="button" onClick={() => restart(agent.name)}>
                      Restart <span class="visually-hidden">{agent.name}</span>
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-pressed={logsOf === agent.name}
                      onClick={() => setLogsOf(logsOf === agent.name ? null : agent.name)}
                    >
                      Logs <span class="visually-hidden">{agent.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>Loading…</p>
        )}
      </Section>
      {logsOf ? <LogTail agent={logsOf} /> : null}
      <Section title="Recent lane activity">
        <ErrorBox error={lanes.error} />
        <ul class="log">
          {(lanes.data?.items ?? []).map((item) => (
            <li key={item.id}>
              <StateBadge state={item.state} /> <strong>{item.agent}</strong> {item.kind} from {item.source}:{' '}
              <span class="muted">{item.message.slice(0, 120)}</span>{' '}
              <a href={`#/traces/${encodeURIComponent(item.traceId)}`}>trace</a>
              {item.errorCode ? <span class="error-text"> {item.errorCode}</span> : null}
            </li>
          ))}
        </ul>
      </Section>
    </>
  );
}

/** The last lines the agent wrote, fetched again every few seconds while shown. */
function LogTail({ agent }: { agent: string }) {
  const logs = useLoad<{ lines: string[] }>(`/api/agents/${encodeURIComponent(agent)}/logs?lines=200`);
  const { reload } = logs;
  useEffect(() => {
    const timer = setInterval(reload, 3_000);
    return () => clearInterval(timer);
  }, [reload]);
  return (
    <Section title={`Logs of ${agent}`}>
      <ErrorBox error={logs.error} />
      <pre class="logs" data-testid="logs">
        {(logs.data?.lines ?? []).join('\n') || 'No output yet.'}
      </pre>
    </Section>
  );
}
