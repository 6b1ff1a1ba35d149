import type { MeshStatus } from '@openlegion/protocol';
import { useState } from 'preact/hooks';
import { ApiError, postJson, time } from '../api';
import { ErrorBox, Section, StateBadge } from '../components';
import { useLiveRefresh } from '../live';
import { useLoad } from '../use-load';

type Row = Record<string, unknown>;

const cell = (value: unknown) =>
  value === null || value === undefined
    ? '—'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

/** A plain table of a list of rows, with the columns given. */
function Rows({ rows, columns }: { rows: Row[]; columns: string[] }) {
  if (rows.length === 0) return <p class="muted">Nothing yet.</p>;
  return (
    <table>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column}>{column}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index}>
            {columns.map((column) => (
              <td key={column}>{cell(row[column]).slice(0, 200)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function BlackboardPage() {
  const [prefix, setPrefix] = useState('');
  const entries = useLoad<{ entries: Row[] }>(`/api/blackboard/entries?prefix=${encodeURIComponent(prefix)}`);
  return (
    <Section title="Blackboard">
      <label for="bb-prefix">Key prefix</label>{' '}
      <input id="bb-prefix" value={prefix} onInput={(event) => setPrefix(event.currentTarget.value)} />
      <ErrorBox error={entries.error} />
      <Rows rows={entries.data?.entries ?? []} columns={['key', 'value', 'written_by', 'version']} />
    </Section>
  );
}

export function PubsubPage() {
  const events = useLoad<{ events: Row[] }>('/api/pubsub/events?limit=50');
  useLiveRefresh(['lane'], events.reload, 1000);
  return (
    <Section title="Pub/sub (latest events)">
      <ErrorBox error={events.error} />
      <Rows rows={events.data?.events ?? []} columns={['id', 'topic', 'publisher', 'payload']} />
    </Section>
  );
}

export function CronPage() {
  const jobs = useLoad<{ jobs: Row[] }>('/api/cron');
  const [error, setError] = useState<string | undefined>(undefined);
  useLiveRefresh(['lane'], jobs.reload, 1000);
  const act = async (id: string, action: 'pause' | 'resume' | 'run') => {
    try {
      await postJson(`/api/cron/${encodeURIComponent(id)}/${action}`);
      jobs.reload();
    } catch (failure) {
      setError(failure instanceof ApiError ? `${failure.code}: ${failure.message}` : String(failure));
    }
  };
  return (
    <Section title="Cron jobs">
      <ErrorBox error={jobs.error ?? error} />
      <ul class="log">
        {(jobs.data?.jobs ?? []).map((job) => {
          const id = String(job.id);
          return (
            <li key={id}>
              <StateBadge state={job.paused ? 'paused' : 'active'} /> <strong>{id}</strong> {cell(job.agent)}{' '}
              · <code>{cell(job.schedule)}</code> · next {time(job.nextRunAt as number | null)}{' '}
              <button type="button" onClick={() => act(id, job.paused ? 'resume' : 'pause')}>
                {job.paused ? 'Resume' : 'Pause'} <span class="visually-hidden">{id}</span>
              </button>{' '}
              <button type="button" onClick={() => act(id, 'run')}>
                Run now <span class="visually-hidden">{id}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </Section>
  );
}

export function MemoryPage() {
  const status = useLoad<MeshStatus>('/api/status');
  const [agent, setAgent] = useState('');
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<Row[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const chosen = agent || status.data?.agents[0]?.name || '';
  const search = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await postJson<{ items?: Row[]; results?: Row[] }>(
        `/api/agents/${encodeURIComponent(chosen)}/memory/search`,
        { query },
      );
      setResults(answer.items ?? answer.results ?? []);
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof ApiError ? `${failure.code}: ${failure.message}` : String(failure));
    }
  };
  return (
    <Section title="Memory search">
      <form onSubmit={search} class="row">
        <label for="mem-agent">Agent</label>
        <select id="mem-agent" value={chosen} onChange={(event) => setAgent(event.currentTarget.value)}>
          {(status.data?.agents ?? []).map((entry) => (
            <option key={entry.name}>{entry.name}</option>
          ))}
        </select>
        <label for="mem-query">Query</label>
        <input id="mem-query" value={query} onInput={(event) => setQuery(event.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={error} />
      <Rows rows={results} columns={['content', 'category', 'score']} />
    </Section>
  );
}

export function ModelsPage() {
  const health = useLoad<{ fallback_strategy: string; models: Row[] }>('/api/llm/health');
  useLiveRefresh(['usage'], health.reload, 2000);
  return (
    <Section title="Model health">
      <ErrorBox error={health.error} />
      <p class="muted">Fallback strategy: {health.data?.fallback_strategy ?? '—'}</p>
      <Rows
        rows={health.data?.models ?? []}
        columns={Object.keys(health.data?.models[0] ?? { model: '', state: '' })}
      />
    </Section>
  );
}

/** Each agent's credentials by name, where they may go, and whether the secret is set; never a value. */
export function VaultPage() {
  const credentials = useLoad<{ credentials: Row[] }>('/api/credentials');
  return (
    <Section title="Vault (credential names)">
      <p class="muted">
        Values never leave the host; set one with <code>openlegion vault set NAME</code>.
      </p>
      <ErrorBox error={credentials.error} />
      <Rows rows={credentials.data?.credentials ?? []} columns={['agent', 'name', 'hosts', 'in', 'set']} />
    </Section>
  );
}
