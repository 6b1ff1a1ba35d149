import { type Clock, sleepOn, systemClock } from '@openlegion/infra/clock';
import {
  type ChatEvent,
  isOpenLegionError,
  type ToolApprovalStatus,
  type ToolResult,
  textResult,
  toolApprovalStatusSchema,
} from '@openlegion/protocol';
import picomatch from 'picomatch';
import type { Logger } from 'pino';
import type { MeshClient } from '../tools/mesh/mesh-client.js';

/** Arguments sent with a request, as JSON text, at most this long (the host previews a few hundred). */
const MAX_ARGUMENTS_JSON_CHARS = 16_384;
/** One long poll: the host answers within its own window (at most 25 s); this only catches a lost host. */
const POLL_TIMEOUT_MS = 60_000;
/** Failed polls in a row (host restarting, network) before the call is given up as not approved. */
const MAX_POLL_FAILURES = 5;
const POLL_RETRY_MS = 2_000;

/** A tool call the loop is about to run. */
export interface GatedCall {
  name: string;
  input: unknown;
}

/** What the gate may use of the running turn. */
export interface GateContext {
  signal: AbortSignal;
  emit: (event: ChatEvent) => void;
  traceId?: string | undefined;
}

/**
 * Tools that ask first (mesh.yaml `agents.NAME.approval`). `check` resolves to undefined when the
 * call may run (not gated, or approved), else to the result the model reads instead: refused,
 * timed out, or the operator could not be asked. It never throws but for the turn's own abort.
 */
export interface ToolApprovalGate {
  matches(name: string): boolean;
  check(call: GatedCall, context: GateContext): Promise<ToolResult | undefined>;
}

export interface ToolApprovalGateDeps {
  /** Globs of tool names (`run_command`, `github__*`). */
  patterns: readonly string[];
  mesh: MeshClient;
  logger: Logger;
  clock?: Clock;
}

/** The gate for this agent's approval list; undefined when the list is empty (nothing asks first). */
export function createToolApprovalGate(deps: ToolApprovalGateDeps): ToolApprovalGate | undefined {
  if (deps.patterns.length === 0) return undefined;
  const matches = picomatch([...deps.patterns], { dot: true });
  const clock = deps.clock ?? systemClock;
  const gate: ToolApprovalGate = {
    matches: (name) => matches(name),
    async check(call, context) {
      if (!matches(call.name)) return undefined;
      let status: ToolApprovalStatus;
      try {
        status = await ask(deps.mesh, call, context);
      } catch (error) {
        context.signal.throwIfAborted();
        deps.logger.warn({ err: error, tool: call.name }, 'asking the operator for approval failed');
        return notRun(call.name, `the operator could not be asked (${reasonOf(error)})`);
      }
      const waiting: ChatEvent = {
        type: 'approval',
        id: status.id,
        tool: call.name,
        state: 'waiting',
        expires_at: status.expires_at,
      };
      let failures = 0;
      while (status.state === 'pending') {
        // Said again after every poll: the host's watchdogs see a turn that waits, not one that hangs.
        context.emit(waiting);
        try {
          status = await poll(deps.mesh, status.id, context);
          failures = 0;
        } catch (error) {
          if (context.signal.aborted) {
            withdraw(deps.mesh, status.id, context.traceId);
            context.signal.throwIfAborted();
          }
          failures += 1;
          deps.logger.warn({ err: error, approval: status.id, failures }, 'polling an approval failed');
          if (failures >= MAX_POLL_FAILURES)
            return notRun(call.name, `the decision could not be read (${reasonOf(error)})`);
          await sleepOn(clock, POLL_RETRY_MS, context.signal).catch(() => undefined);
        }
      }
      return outcome(call.name, status, context.emit);
    },
  };
  return gate;
}

async function ask(mesh: MeshClient, call: GatedCall, context: GateContext): Promise<ToolApprovalStatus> {
  const json = JSON.stringify(call.input ?? {}) ?? '{}';
  const args =
    json.length <= MAX_ARGUMENTS_JSON_CHARS ? call.input : `${json.slice(0, MAX_ARGUMENTS_JSON_CHARS)}…`;
  const answer = await mesh.call({
    method: 'POST',
    path: '/mesh/approvals',
    body: { tool: call.name, arguments: args },
    signal: context.signal,
    traceId: context.traceId,
  });
  return toolApprovalStatusSchema.parse(answer);
}

async function poll(mesh: MeshClient, id: string, context: GateContext): Promise<ToolApprovalStatus> {
  const answer = await mesh.call({
    method: 'GET',
    path: `/mesh/approvals/${encodeURIComponent(id)}`,
    signal: context.signal,
    timeoutMs: POLL_TIMEOUT_MS,
    traceId: context.traceId,
  });
  return toolApprovalStatusSchema.parse(answer);
}

/** The turn ended while it waited: take the call off the operator's list (best effort). */
function withdraw(mesh: MeshClient, id: string, traceId: string | undefined): void {
  void mesh
    .call({ method: 'DELETE', path: `/mesh/approvals/${encodeURIComponent(id)}`, traceId })
    .catch(() => undefined);
}

function outcome(
  tool: string,
  status: ToolApprovalStatus,
  emit: (event: ChatEvent) => void,
): ToolResult | undefined {
  const state = status.state === 'withdrawn' ? 'expired' : status.state;
  if (state === 'pending') return undefined; // the loop only ends on a decision
  emit({ type: 'approval', id: status.id, tool, state });
  if (state === 'approved') return undefined;
  const note = status.note ? ` (their note: ${status.note})` : '';
  if (state === 'rejected')
    return notRun(
      tool,
      `the operator refused it${note}. Do not call it again for the same purpose unless the user asks; say what you wanted to do, or find another way`,
    );
  return notRun(
    tool,
    'nobody approved it in time. Tell the user it waits for their approval, and do not retry it on your own',
  );
}

/** The result the model reads for a call that did not run: plain words, never an exception. */
function notRun(tool: string, why: string): ToolResult {
  return textResult(`Not run: ${tool} needs the operator's approval, and ${why}.`, true);
}

function reasonOf(error: unknown): string {
  if (isOpenLegionError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
