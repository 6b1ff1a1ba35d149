import type { Clock } from '@openlegion/infra/clock';
import { estimateTokens } from '@openlegion/memory';
import type { Logger } from 'pino';
import type { LlmMessage } from '../context-manager.js';
import type { FastTierCall } from '../fast-tier.js';
import { messageFingerprint } from '../message-fingerprint.js';
import { groupMessages } from '../message-groups.js';
import { transcriptLine } from '../transcript.js';
import type { LosslessSettings } from './lossless-settings.js';
import { summariseSpan } from './span-summariser.js';
import type { SummaryNode, SummaryStore } from './summary-store.js';

/** What building the DAG needs. */
export interface DagDeps {
  store: SummaryStore;
  call: FastTierCall;
  settings: LosslessSettings;
  clock: Clock;
  logger: Logger;
}

export interface DagRequest {
  conversationId: string;
  signal: AbortSignal;
  traceId?: string | undefined;
}

/**
 * Where the fresh tail begins: the start of the group holding the `freshTailMessages`-th message
 * from the end, so a tool call and its results are never split between summary and tail.
 */
export function freshTailStart(body: readonly LlmMessage[], freshTailMessages: number): number {
  const want = Math.max(0, body.length - freshTailMessages);
  for (const group of groupMessages(body)) if (group.end > want) return group.start;
  return body.length;
}

/**
 * `[from, to)` cut into leaf spans of whole message groups, each at least `chunkTokens` raw tokens
 * (the last may be smaller). `from` and `to` must be group boundaries.
 */
export function leafSpans(
  body: readonly LlmMessage[],
  from: number,
  to: number,
  chunkTokens: number,
): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let start = from;
  let tokens = 0;
  for (const group of groupMessages(body)) {
    if (group.start < from || group.end > to) continue;
    for (let index = group.start; index < group.end; index++) tokens += messageTokens(body[index]);
    if (tokens >= chunkTokens) {
      spans.push([start, group.end]);
      start = group.end;
      tokens = 0;
    }
  }
  if (start < to) spans.push([start, to]);
  return spans;
}

export function messageTokens(message: LlmMessage | undefined): number {
  return message ? estimateTokens(transcriptLine(message)) : 0;
}

/** The messages `[from, to)` summarised into leaves; returns the leaves made. */
export async function summariseLeaves(
  deps: DagDeps,
  request: DagRequest,
  body: readonly LlmMessage[],
  from: number,
  to: number,
): Promise<SummaryNode[]> {
  const made: SummaryNode[] = [];
  for (const [start, end] of leafSpans(body, from, to, deps.settings.leafChunkTokens)) {
    const text = body
      .slice(start, end)
      .map((message, offset) => `#${start + offset + 1} ${transcriptLine(message)}`)
      .join('\n');
    const summary = await summariseSpan(deps.call, {
      text,
      targetTokens: deps.settings.leafTargetTokens,
      condensing: false,
      signal: request.signal,
      traceId: request.traceId,
    });
    logEscalation(deps, request, summary, `messages ${start + 1}–${end}`);
    made.push(
      deps.store.add({
        conversationId: request.conversationId,
        depth: 0,
        start,
        end,
        children: [],
        content: summary.content,
        tokens: estimateTokens(summary.content),
        mode: summary.mode,
        anchor: messageFingerprint(body[end - 1]),
        createdAt: deps.clock.now(),
      }),
    );
  }
  return made;
}

/**
 * Condense while a depth holds a full fanout of active summaries (8 leaves, 4 condensed), oldest
 * first; a new summary may fill the next depth, so this repeats until nothing is full.
 */
export async function condenseFull(deps: DagDeps, request: DagRequest): Promise<number> {
  let made = 0;
  for (;;) {
    const run = fullRun(deps.store.active(request.conversationId), deps.settings);
    if (!run) return made;
    await condenseRun(deps, request, run);
    made++;
  }
}

/**
 * Under budget pressure: condense the oldest run of at least `minFanout` (2) active summaries of one
 * depth, up to that depth's fanout. False when no such run exists.
 */
export async function condenseOnce(deps: DagDeps, request: DagRequest): Promise<boolean> {
  const active = deps.store.active(request.conversationId);
  const runs = depthRuns(active);
  const run = runs.find((candidate) => candidate.length >= deps.settings.minFanout);
  if (!run) return false;
  const first = run[0] as SummaryNode; // runs are never empty
  await condenseRun(deps, request, run.slice(0, fanoutOf(first.depth, deps.settings)));
  return true;
}

async function condenseRun(deps: DagDeps, request: DagRequest, run: readonly SummaryNode[]): Promise<void> {
  const first = run[0] as SummaryNode; // callers pass at least two
  const last = run[run.length - 1] as SummaryNode;
  const text = run
    .map((node) => `[S${node.id}, messages ${node.start + 1}–${node.end}]\n${node.content}`)
    .join('\n\n');
  const summary = await summariseSpan(deps.call, {
    text,
    targetTokens: deps.settings.condensedTargetTokens,
    condensing: true,
    signal: request.signal,
    traceId: request.traceId,
  });
  logEscalation(deps, request, summary, `summaries S${first.id}–S${last.id}`);
  deps.store.add({
    conversationId: request.conversationId,
    depth: first.depth + 1,
    start: first.start,
    end: last.end,
    children: run.map((node) => node.id),
    content: summary.content,
    tokens: estimateTokens(summary.content),
    mode: summary.mode,
    anchor: last.anchor,
    createdAt: deps.clock.now(),
  });
}

/** The oldest run of `fanout` consecutive active summaries of one depth, if any. */
function fullRun(active: readonly SummaryNode[], settings: LosslessSettings): SummaryNode[] | undefined {
  for (const run of depthRuns(active)) {
    const fanout = fanoutOf((run[0] as SummaryNode).depth, settings);
    if (run.length >= fanout) return run.slice(0, fanout);
  }
  return undefined;
}

/** Active summaries cut into runs of consecutive, contiguous spans of one depth. */
function depthRuns(active: readonly SummaryNode[]): SummaryNode[][] {
  const runs: SummaryNode[][] = [];
  for (const node of active) {
    const run = runs.at(-1);
    const previous = run?.at(-1);
    if (run && previous && previous.depth === node.depth && previous.end === node.start) run.push(node);
    else runs.push([node]);
  }
  return runs;
}

function fanoutOf(depth: number, settings: LosslessSettings): number {
  return Math.max(settings.minFanout, depth === 0 ? settings.leafFanout : settings.condensedFanout);
}

function logEscalation(
  deps: DagDeps,
  request: DagRequest,
  summary: { mode: string; failures: unknown[] },
  what: string,
): void {
  if (summary.failures.length === 0) return;
  deps.logger.warn(
    { conversation: request.conversationId, mode: summary.mode, err: summary.failures.at(-1) },
    `lcm summary of ${what} escalated to ${summary.mode}`,
  );
}
