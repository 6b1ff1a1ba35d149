import { errorFromBody } from '@openlegion/infra/http';
import { readSseFrames, type SseFrame } from '@openlegion/infra/sse';
import { OpenLegionError } from '@openlegion/protocol';
import { traceHeaders } from '../../subagents/subagent-context.js';

/** A frame is an event's JSON: far below this; a host that sends more is cut off. */
const MAX_EVENT_FRAME_CHARS = 256 * 1024;

export interface MeshEventsCall {
  /** A `/mesh/...` SSE route (a blackboard watch, a pub/sub stream). */
  path: string;
  /** The longest the read waits for a first frame. */
  waitMs: number;
  /** Stop once this many frames arrived. */
  max: number;
  /** After a first frame, stop once no other came for this long (a backlog arrives at once). */
  settleMs: number;
  signal?: AbortSignal;
  traceId?: string | undefined;
}

/**
 * The first frames of one of the host's SSE routes, then the stream is closed: what a tool that
 * waits for a change or an event needs. Ends after `waitMs` with what came (maybe nothing).
 * @throws {OpenLegionError} the host's own error (`MESH_FORBIDDEN`, ...) or `MESH_NOT_RUNNING`.
 */
export async function readMeshEvents(
  host: { meshUrl: string; token: string },
  call: MeshEventsCall,
): Promise<SseFrame[]> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  call.signal?.addEventListener('abort', abort, { once: true });
  let timer = setTimeout(abort, call.waitMs);
  const frames: SseFrame[] = [];
  const target = `GET ${call.path}`;
  try {
    const response = await fetch(`${host.meshUrl.replace(/\/+$/, '')}${call.path}`, {
      headers: {
        authorization: `Bearer ${host.token}`,
        accept: 'text/event-stream',
        ...traceHeaders(call.traceId),
      },
      signal: controller.signal,
    });
    if (!response.ok || !response.body) {
      const text = await response.text();
      throw errorFromBody(
        response.status,
        text,
        () => new OpenLegionError('INTERNAL', `${target}: ${response.status} ${text.slice(0, 200)}`),
      );
    }
    for await (const frame of readSseFrames(response.body, { maxFrameChars: MAX_EVENT_FRAME_CHARS })) {
      frames.push(frame);
      if (frames.length >= call.max) break;
      clearTimeout(timer);
      timer = setTimeout(abort, call.settleMs);
    }
    return frames;
  } catch (error) {
    if (call.signal?.aborted) throw call.signal.reason;
    // Our own timer ended the wait: what came is the answer.
    if (controller.signal.aborted) return frames;
    if (error instanceof OpenLegionError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new OpenLegionError('MESH_NOT_RUNNING', `${target}: host unreachable (${reason})`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    call.signal?.removeEventListener('abort', abort);
    controller.abort();
  }
}

/** A frame's data as JSON, or undefined when it is not (the tool then skips the frame). */
export function frameJson(frame: SseFrame): unknown {
  try {
    return JSON.parse(frame.data);
  } catch {
    return undefined;
  }
}
