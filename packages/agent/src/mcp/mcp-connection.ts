import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  type McpServerSelf,
  type McpServerState,
  stripInvisible,
  type ToolResult,
  textResult,
} from '@openlegion/protocol';
import type { Logger } from 'pino';
import { OutputRingBuffer } from '../tools/runtime/output-ring-buffer.js';
import { mcpToolResult } from './mcp-result.js';
import { type McpToolDefinition, mcpToolDefinition } from './mcp-tool-schema.js';
import type { McpTransport } from './mcp-transport.js';

/** A server that has not answered `initialize` by then is treated as not starting. */
export const MCP_INIT_TIMEOUT_MS = 20_000;
/** Waits before restarting a crashed (or not started) server; the last repeats. */
export const MCP_RESTART_DELAYS_MS: readonly number[] = [500, 2_000, 5_000, 15_000, 60_000];
/** The end of a stdio server's stderr kept for error messages; a flood only turns the ring. */
const STDERR_KEEP_BYTES = 16 * 1024;
/** What of stderr an error message quotes. */
const STDERR_QUOTE_CHARS = 600;
/** Pages of `tools/list` read; a server with more is cut there (each tool costs schema tokens). */
const LIST_MAX_PAGES = 10;

export interface McpConnectionOptions {
  server: McpServerSelf;
  transport: (server: McpServerSelf) => McpTransport;
  logger: Logger;
  /** The server's tools or state changed: the agent rebuilds its tool list. */
  onChange: () => void;
  initTimeoutMs?: number;
  restartDelaysMs?: readonly number[];
}

export interface McpCallOptions {
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

/**
 * One MCP server: started (and restarted with backoff after a crash or a failed start), its tools
 * listed again on `notifications/tools/list_changed`, calls bounded by the server's `timeout_ms`.
 * A failure never throws into the loop: the tool result says what happened.
 */
export class McpConnection {
  state: McpServerState = 'starting';
  /** The tools last listed; kept through a crash so a call can wait for the restart. */
  tools: McpToolDefinition[] = [];
  restarts = 0;
  error: string | undefined;
  private client: Client | undefined;
  private readonly stderr = new OutputRingBuffer(STDERR_KEEP_BYTES);
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private crashNote: string | undefined;
  private waiters: Array<() => void> = [];
  /** The last thing the transport could not read (a line that is not JSON-RPC), for messages. */
  private transportError: string | undefined;
  /** Why the transport stopped the server itself, if it did (a stdout flood). */
  private problem: (() => string | undefined) | undefined;
  private readonly log: Logger;

  constructor(private readonly options: McpConnectionOptions) {
    this.log = options.logger.child({ mcp: options.server.name });
  }

  get name(): string {
    return this.options.server.name;
  }

  get server(): McpServerSelf {
    return this.options.server;
  }

  /** The connected client while the server is ready. */
  get ready(): Client | undefined {
    return this.state === 'ready' ? this.client : undefined;
  }

  /** Connects; resolves once ready or failed (a failure schedules the next try). */
  async start(): Promise<void> {
    const { server } = this.options;
    const { transport, stderr, problem } = this.options.transport(server);
    this.problem = problem;
    stderr?.on('data', (chunk: Buffer) => this.stderr.write(chunk));
    const client = new Client(
      { name: 'openlegion-agent', version: '1' },
      {
        capabilities: {},
        listChanged: { tools: { autoRefresh: false, onChanged: () => void this.relist(client) } },
      },
    );
    this.client = client;
    client.onclose = () => this.closed(client);
    // Lines that are not JSON-RPC (a server printing logs on stdout): kept for the next message.
    client.onerror = (error) => {
      this.transportError = (error instanceof Error ? error.message : String(error)).slice(0, 200);
      this.log.debug({ err: error }, 'mcp transport error');
    };
    this.transportError = undefined;
    try {
      await client.connect(transport, { timeout: this.options.initTimeoutMs ?? MCP_INIT_TIMEOUT_MS });
      this.tools = await this.listTools(client);
      this.setState('ready');
      this.attempt = 0;
      this.error = undefined;
      this.log.info({ tools: this.tools.length }, 'mcp server ready');
    } catch (error) {
      this.client = undefined;
      await client.close().catch(() => undefined);
      const raw = (error instanceof Error ? error.message : String(error)).slice(0, 200);
      // The HTTP transports report their failure both ways: say it once.
      const unreadable =
        this.transportError && this.transportError !== raw
          ? ` (it wrote what is not JSON-RPC: ${this.transportError})`
          : '';
      this.error = `did not start: ${reasonOf(error)}${unreadable}${this.stderrTail()}`;
      this.log.warn({ error: this.error }, 'mcp server did not start');
      this.setState('failed');
      this.scheduleRestart();
    }
  }

  /** Call one of the server's tools; every outcome is a tool result the model can act on. */
  async call(tool: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<ToolResult> {
    const timeoutMs = this.options.server.timeout_ms;
    const client = await this.usable(timeoutMs);
    if (client === undefined) return textResult(this.unavailableMessage(), true);
    const note = this.crashNote;
    this.crashNote = undefined;
    // The SDK leaves its abort listener on the signal it is given; a turn's signal serves many
    // calls, so each call gets its own, tied to the turn's and let go after the call.
    const call = new AbortController();
    const abort = () => call.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      options.signal?.throwIfAborted();
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: timeoutMs,
        signal: call.signal,
        ...(options.onProgress ? { onprogress: progressReporter(options.onProgress) } : {}),
      });
      return mcpToolResult(result, note);
    } catch (error) {
      options.signal?.throwIfAborted();
      return textResult(this.callFailure(tool, error, timeoutMs), true);
    } finally {
      options.signal?.removeEventListener('abort', abort);
    }
  }

  /** Why the server cannot take a call now, and what happens next. */
  unavailableMessage(): string {
    const next = this.timer ? '; it is tried again shortly' : '';
    return `MCP server ${this.name} is not available (${this.state}): ${this.error ?? 'still starting'}${next}`;
  }

  async close(): Promise<void> {
    this.setState('closed');
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  /** The connected client, waiting (within the call's time) for a start or restart under way. */
  private async usable(timeoutMs: number): Promise<Client | undefined> {
    if (this.state === 'starting' || this.state === 'restarting') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.ready;
  }

  private callFailure(tool: string, error: unknown, timeoutMs: number): string {
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return `${this.name}__${tool} timed out after ${timeoutMs} ms (mesh.yaml timeout_ms of server ${this.name}); the server may still be working on it`;
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return `MCP server ${this.name} stopped during the call${this.stderrTail()}; it is being restarted, call again in a moment`;
    }
    return `MCP server ${this.name} answered ${tool} with an error: ${reasonOf(error)}`;
  }

  /** The connection ended: our own close, a failed start (handled there), or a crash. */
  private closed(client: Client): void {
    if (this.client !== client || this.state !== 'ready') return;
    this.client = undefined;
    this.restarts += 1;
    this.error = `the server stopped${this.stderrTail()}`;
    this.crashNote = `[MCP server ${this.name} had stopped (${this.error}) and was restarted (restart ${this.restarts})]`;
    this.log.warn({ error: this.error, restarts: this.restarts }, 'mcp server stopped; restarting');
    this.setState('restarting');
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delays = this.options.restartDelaysMs ?? MCP_RESTART_DELAYS_MS;
    const delay = delays[Math.min(this.attempt, delays.length - 1)] ?? 1_000;
    this.attempt += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.state === 'closed') return;
      if (this.state === 'failed') this.setState('restarting');
      void this.start();
    }, delay);
    this.timer.unref();
  }

  private async relist(client: Client): Promise<void> {
    if (this.client !== client || this.state !== 'ready') return;
    try {
      this.tools = await this.listTools(client);
      this.log.info({ tools: this.tools.length }, 'mcp tools changed');
      this.options.onChange();
    } catch (error) {
      this.log.warn({ err: error }, 'mcp tools could not be listed again');
    }
  }

  private async listTools(client: Client): Promise<McpToolDefinition[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: McpToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < LIST_MAX_PAGES; page += 1) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.options.server.timeout_ms,
      });
      for (const tool of listed.tools) tools.push(mcpToolDefinition(this.name, tool));
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  private setState(state: McpServerState): void {
    this.state = state;
    if (state !== 'starting' && state !== 'restarting') {
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
    this.options.onChange();
  }

  /** The end of the server's stderr, after the reason the transport stopped it, if it did. */
  private stderrTail(): string {
    const stopped = this.problem?.();
    const { text } = this.stderr.read();
    const tail = stripInvisible(text).trim().slice(-STDERR_QUOTE_CHARS);
    return `${stopped ? ` (${stopped})` : ''}${tail ? ` (stderr: ${tail})` : ''}`;
  }
}

function progressReporter(report: (message: string) => void) {
  return (progress: { progress: number; total?: number; message?: string }) => {
    const of = progress.total === undefined ? '' : `/${progress.total}`;
    report(
      `progress ${progress.progress}${of}${progress.message ? `: ${stripInvisible(progress.message)}` : ''}`,
    );
  };
}

/** What went wrong; a remote server's HTTP status is named, with what a 401/403 or 5xx means here. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const status = (error as { code?: unknown } | undefined)?.code;
  if (!(error instanceof StreamableHTTPError || error instanceof SseError) || typeof status !== 'number')
    return message;
  const meaning =
    status === 401 || status === 403
      ? ': refused (is the server in permissions.mcp, and its credential in the vault?)'
      : status >= 500
        ? ': the server, or the host on its way, failed'
        : '';
  return `${message.replace(/[:\s]+$/, '')} (HTTP ${status}${meaning})`;
}
