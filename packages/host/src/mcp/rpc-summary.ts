/** Bodies past this are not parsed for a trace hop's name (a large one is a tool's arguments). */
const SUMMARY_MAX_BYTES = 256 * 1024;
const NAME = /^[\w./:-]{1,100}$/;

/** What a trace hop says of an MCP message: its JSON-RPC method and, for `tools/call`, the tool. */
export interface RpcSummary {
  method: string;
  tool?: string;
  /** Messages in a JSON-RPC batch. */
  batch?: number;
}

/**
 * The method (and tool) of the agent's JSON-RPC message, for traces and the log. The agent wrote
 * it, so only names of a safe shape are kept; anything else is `unknown`.
 */
export function rpcSummary(body: Buffer): RpcSummary {
  if (body.length > SUMMARY_MAX_BYTES) return { method: 'unknown' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { method: 'unknown' };
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  const summary = summaryOf(first);
  return Array.isArray(parsed) ? { ...summary, batch: parsed.length } : summary;
}

function summaryOf(message: unknown): RpcSummary {
  if (typeof message !== 'object' || message === null) return { method: 'unknown' };
  const { method, params, result, error } = message as Record<string, unknown>;
  if (typeof method !== 'string')
    return { method: result !== undefined || error !== undefined ? 'response' : 'unknown' };
  if (!NAME.test(method)) return { method: 'unknown' };
  const tool = (params as { name?: unknown } | undefined)?.name;
  return method === 'tools/call' && typeof tool === 'string' && NAME.test(tool)
    ? { method, tool }
    : { method };
}
