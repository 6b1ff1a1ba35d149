import type { WorkflowRunView, WorkflowStepView } from '@openlegion/protocol';

const MARK: Record<WorkflowStepView['state'], string> = {
  pending: '·',
  waiting_approval: '?',
  waiting_agent: '…',
  running: '▶',
  retry_wait: '↻',
  done: '✔',
  failed: '✘',
  skipped: '-',
  cancelled: '■',
  rejected: '✘',
};

/**
 * A run as text: steps in layers (a step's layer is one past its deepest dependency), each with
 * its state, agent, duration, cost and what it waits for; errors and approvals to give below.
 *
 * @example
 * workflow publish · run run-m1-ab12 · running · 4.2s
 *   [1] research    ✔ done     researcher  3.2s  $-
 *   [2] write       ▶ running  writer      1.0s  $-  ← research
 */
export function drawRun(run: WorkflowRunView, now: number): string {
  const layers = layerOf(run.steps);
  const idWidth = Math.max(...run.steps.map((step) => step.id.length));
  const stateWidth = Math.max(...run.steps.map((step) => step.state.length)) + 2;
  const agentWidth = Math.max(1, ...run.steps.map((step) => (step.agent ?? '-').length));
  const took = duration((run.finished_at ?? now) - run.created_at);
  const lines = [`workflow ${run.workflow} · run ${run.id} · ${run.state} · ${took} · ${run.trigger}`];
  let shownLayer = 0;
  const ordered = [...run.steps].sort((a, b) => (layers.get(a.id) ?? 0) - (layers.get(b.id) ?? 0));
  for (const step of ordered) {
    const layer = layers.get(step.id) ?? 1;
    const label = layer === shownLayer ? '   ' : `[${layer}]`;
    shownLayer = layer;
    const state = `${MARK[step.state]} ${step.state}`.padEnd(stateWidth);
    const items = step.items ? ` ${step.items.done}/${step.items.total}` : '';
    const cost = step.cost_usd === null ? '$-' : `$${step.cost_usd.toFixed(4)}`;
    const after = step.depends_on.length > 0 ? `  ← ${step.depends_on.join(', ')}` : '';
    const time = step.duration_ms === null ? '-' : duration(step.duration_ms);
    lines.push(
      `  ${label} ${step.id.padEnd(idWidth)}  ${state}  ${(step.agent ?? '-').padEnd(agentWidth)}  ${time.padStart(6)}  ${cost}${items}${after}`,
    );
    if (step.error) lines.push(`        ${step.error.code}: ${step.error.message}`);
    if (step.state === 'waiting_approval')
      lines.push(
        `        approve: openlegion workflow approve ${run.id} ${step.id}   reject: openlegion workflow reject ${run.id} ${step.id}`,
      );
  }
  if (run.error && !run.steps.some((step) => step.error?.message === run.error?.message))
    lines.push(`  ${run.error.code}: ${run.error.message}`);
  return `${lines.join('\n')}\n`;
}

/** Each step's layer: 1 for a step without dependencies, else one past its deepest one. */
export function layerOf(steps: readonly Pick<WorkflowStepView, 'id' | 'depends_on'>[]): Map<string, number> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const layers = new Map<string, number>();
  const visit = (id: string, seen: Set<string>): number => {
    const known = layers.get(id);
    if (known !== undefined) return known;
    seen.add(id);
    const deps = (byId.get(id)?.depends_on ?? []).filter((dep) => byId.has(dep) && !seen.has(dep));
    const layer = 1 + Math.max(0, ...deps.map((dep) => visit(dep, seen)));
    layers.set(id, layer);
    return layer;
  };
  for (const step of steps) visit(step.id, new Set());
  return layers;
}

/** `850ms`, `4.2s`, `3m10s`, `2h05m`. */
export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)}s`;
  if (ms < 3_600_000)
    return `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1_000)).padStart(2, '0')}s`;
  return `${Math.floor(ms / 3_600_000)}h${String(Math.floor((ms % 3_600_000) / 60_000)).padStart(2, '0')}m`;
}
