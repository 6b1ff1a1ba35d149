import { createJsonClient } from '@openlegion/infra/http';
import type { SseFrame } from '@openlegion/infra/sse';
import { TRACEPARENT_HEADER } from '@openlegion/protocol';
import { traceHeaders } from '../../subagents/subagent-context.js';
import { type MeshEventsCall, readMeshEvents } from './mesh-events.js';

/** Per-call limit when the caller gives none: the host answers these from memory or its database. */
const MESH_CALL_TIMEOUT_MS = 30_000;

export interface MeshClientOptions {
  /** The host's base URL (`MESH_URL`), no trailing slash needed. */
  meshUrl: string;
  /** The agent's bearer token (`MESH_TOKEN`). */
  token: string;
  /** The trace the current turn runs under, sent as {@link TRACE_HEADER} so the host links the calls. */
  traceId?: () => string | undefined;
  /** The W3C `traceparent` of a trace's turn, sent beside {@link TRACE_HEADER}. */
  traceparentOf?: (traceId: string) => string | undefined;
}

export interface MeshCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The trace of the tool call making it (wins over the client's `traceId`). */
  traceId?: string | undefined;
}

/** The tools' calls to the host's `/mesh/*` routes with the agent's token. */
export interface MeshClient {
  /**
   * One call; the parsed JSON answer on 2xx.
   * @throws {OpenLegionError} the host's own error (`MESH_FORBIDDEN`, `MESH_KEY_NOT_FOUND`, ...), or
   * `MESH_NOT_RUNNING` when the host cannot be reached or does not answer in time.
   */
  call(call: MeshCall): Promise<unknown>;
  /** The first frames of an SSE route (watch, stream), then closed; see {@link readMeshEvents}. */
  events(call: MeshEventsCall): Promise<SseFrame[]>;
}

/** A {@link MeshClient} over infra's JSON client: no retries, since tool calls are the model's to repeat. */
export function createMeshClient(options: MeshClientOptions): MeshClient {
  const client = createJsonClient({
    baseUrl: options.meshUrl,
    token: options.token,
    timeoutMs: MESH_CALL_TIMEOUT_MS,
  });
  return {
    async call({ method, path, body, signal, timeoutMs, traceId: callTrace }) {
      const traceId = callTrace ?? options.traceId?.();
      const traceparent = traceId ? options.traceparentOf?.(traceId) : undefined;
      const answer = await client.send({
        method,
        path,
        body,
        headers: { ...traceHeaders(traceId), ...(traceparent ? { [TRACEPARENT_HEADER]: traceparent } : {}) },
        signal,
        timeoutMs,
      });
      return answer.json;
    },
    events: (call) => readMeshEvents(options, { ...call, traceId: call.traceId ?? options.traceId?.() }),
  };
}
