import type { WorkflowRunSummary, WorkflowRunView, WorkflowStepView } from '@openlegion/protocol';
import { useState } from 'preact/hooks';
import { ApiError, postJson, time, usd } from '../api';
import { ErrorBox, Section, StateBadge } from '../components';
import { useLiveRefresh } from '../live';
import { useLoad } from '../use-load';

/** Workflow runs; one opens as its DAG (steps in columns by depth) with approve and reject. */
export function WorkflowsPage({ run }: { run: string | undefined }) {
  return run ? <RunView id={run} /> : <RunList />;
}

function RunList() {
  const runs = useLoad<{ runs: WorkflowRunSummary[] }>('/api/workflows/runs');
  useLiveRefresh(['step'], runs.reload);
  return (
    <Section title="Workflow runs">
      <ErrorBox error={runs.error} />
      <ul class="log">
        {(runs.data?.runs ?? []).map((run) => (
          <li key={run.id}>
            <StateBadge state={run.state} />{' '}
            <a href={`#/workflows/${encodeURIComponent(run.id)}`}>{run.workflow}</a>{' '}
            <span class="muted">
              {run.id} · {time(run.created_at)} · {run.trigger}
            </span>
          </li>
        ))}
      </ul>
    </Section>
  );
}

/** Each step's depth: one more than its deepest dependency. */
function depths(steps: WorkflowStepView[]): Map<string, number> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const depth = new Map<string, number>();
  const of = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0;
    seen.add(id);
    const step = byId.get(id);
    const value = step ? Math.max(-1, ...step.depends_on.map((parent) => of(parent, seen))) + 1 : 0;
    depth.set(id, value);
    return value;
  };
  for (const step of steps) of(step.id, new Set());
  return depth;
}

function RunView({ id }: { id: string }) {
  const run = useLoad<{ run: WorkflowRunView }>(`/api/workflows/runs/${encodeURIComponent(id)}`);
  const [error, setError] = useState<string | undefined>(undefined);
  useLiveRefresh(['step', 'approval'], run.reload, 200);
  const decide = async (step: string, decision: 'approve' | 'reject') => {
    try {
      await postJson(
        `/api/workflows/runs/${encodeURIComponent(id)}/steps/${encodeURIComponent(step)}/${decision}`,
      );
      run.reload();
    } catch (failure) {
      setError(failure instanceof ApiError ? `${failure.code}: ${failure.message}` : String(failure));
    }
  };
  const view = run.data?.run;
  const levels = view ? depths(view.steps) : new Map<string, number>();
  const columns: WorkflowStepView[][] = [];
  for (const step of view?.steps ?? []) {
    const level = levels.get(step.id) ?? 0;
    columns[level] = [...(columns[level] ?? []), step];
  }
  return (
    <Section title={view ? `Run of ${view.workflow}` : `Run ${id}`}>
      <p>
        <a href="#/workflows">All runs</a>
      </p>
      <ErrorBox error={run.error ?? error} />
      {view ? (
        <>
          <p>
            <StateBadge state={view.state} /> <span class="muted">{view.id}</span>
          </p>
          <div class="dag">
            {columns.map((column, level) => (
              <ol key={level} class="dag-column" aria-label={`Steps at depth ${level}`}>
                {column.map((step) => (
                  <li key={step.id} class={`dag-step state-${step.state}`} data-step={step.id}>
                    <strong>{step.id}</strong> <StateBadge state={step.state} />
                    <div class="muted">
                      {step.agent ?? ''}{' '}
                      {step.depends_on.length > 0 ? `after ${step.depends_on.join(', ')}` : ''}
                    </div>
                    {step.cost_usd !== null ? <div class="muted">{usd(step.cost_usd)}</div> : null}
                    {step.output_preview ? <div class="preview">{step.output_preview}</div> : null}
                    {step.error ? <div class="error-text">{step.error.message}</div> : null}
                    {step.state === 'waiting_approval' ? (
                      <div class="buttons">
                        <button type="button" onClick={() => decide(step.id, 'approve')}>
                          Approve <span class="visually-hidden">{step.id}</span>
                        </button>
                        <button type="button" class="danger" onClick={() => decide(step.id, 'reject')}>
                          Reject <span class="visually-hidden">{step.id}</span>
                        </button>
                      </div>
                    ) : null}
                  </li>
                ))}
              </ol>
            ))}
          </div>
        </>
      ) : null}
    </Section>
  );
}
