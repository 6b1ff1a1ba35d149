import { type Clock, systemClock } from '@openlegion/infra/clock';
import type { AgentTool } from '@openlegion/protocol';
import type OpenAI from 'openai';
import { createFastTierCall, LongResultSummariser } from '../context/index.js';
import { createFileTools } from './files/file-tools.js';
import { createMeshClient, type MeshClient, type MeshClientOptions } from './mesh/mesh-client.js';
import { ProcessRegistry, type ProcessRegistryOptions } from './runtime/process-registry.js';
import { createProcessTools } from './runtime/process-tools.js';
import { createRunCommandTool } from './runtime/run-command-tool.js';
import { createWebSearchTool } from './search/web-search-tool.js';
import { createHttpRequestTool } from './web/http-request-tool.js';
import { PageFetcher, type ProxySettings, proxyFromEnv } from './web/page-fetcher.js';
import { createWebFetchTool } from './web/web-fetch-tool.js';

/** Time limit of one page download. */
export const WEB_FETCH_TIMEOUT_MS = 30_000;
/** Largest page body downloaded; the rest is cut (bytes). */
export const WEB_FETCH_MAX_BYTES = 5 * 1024 * 1024;

export interface CoreToolsOptions {
  /** The host (for `http_request`): a client, or the URL and token to make one. */
  mesh: MeshClient | MeshClientOptions;
  /** Egress proxy for `web_fetch`; default from HTTP(S)_PROXY / NO_PROXY in the environment. */
  proxy?: ProxySettings;
  /** Environment for commands and processes; default the agent's own without MESH_TOKEN. */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  processes?: Omit<ProcessRegistryOptions, 'clock' | 'env'>;
  webFetch?: { timeoutMs?: number; maxBytes?: number; userAgent?: string };
  /** The host's LLM proxy, for summarising long results on the fast tier (`web_fetch` with `focus`). */
  llm?: () => Promise<OpenAI>;
}

/** The core tools and what must be released when the agent stops. */
export interface CoreTools {
  /** `files`, `runtime` and `web` groups. */
  tools: AgentTool[];
  /** Background processes, for status pages and tests. */
  processes: ProcessRegistry;
  /** Kill every background process and close the web connection pool; call once at shutdown. */
  close(): Promise<void>;
}

/**
 * The agent's built-in tools for files, commands, background processes and the web. Mesh tools
 * are separate ({@link createMeshTools}) since they need nothing released.
 *
 * @example
 * const core = createCoreTools({ mesh: { meshUrl: env.MESH_URL, token: env.MESH_TOKEN } });
 * // register core.tools with the loop; on shutdown: await core.close()
 */
export function createCoreTools(options: CoreToolsOptions): CoreTools {
  const clock = options.clock ?? systemClock;
  const mesh = 'call' in options.mesh ? options.mesh : createMeshClient(options.mesh);
  const processes = new ProcessRegistry({
    ...options.processes,
    clock,
    ...(options.env ? { env: options.env } : {}),
  });
  const fetcher = new PageFetcher({
    proxy: options.proxy ?? proxyFromEnv(),
    timeoutMs: options.webFetch?.timeoutMs ?? WEB_FETCH_TIMEOUT_MS,
    maxBytes: options.webFetch?.maxBytes ?? WEB_FETCH_MAX_BYTES,
    userAgent: options.webFetch?.userAgent ?? 'Mozilla/5.0 (compatible; OpenLegion-agent/0.1)',
  });
  const tools: AgentTool[] = [
    ...createFileTools(),
    createRunCommandTool(options.env ? { env: options.env } : {}) as AgentTool,
    ...createProcessTools(processes),
    createHttpRequestTool(mesh) as AgentTool,
    createWebFetchTool({
      fetcher,
      clock,
      ...(options.llm
        ? { summariser: new LongResultSummariser({ call: createFastTierCall(options.llm) }) }
        : {}),
    }) as AgentTool,
    createWebSearchTool(mesh) as AgentTool,
  ];
  return {
    tools,
    processes,
    async close() {
      await Promise.all([processes.closeAll(), fetcher.close()]);
    },
  };
}
