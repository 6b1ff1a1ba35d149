/** The catalogue of error codes (docs/errors.md mirrors it); the error type itself is in errors.ts. */
import { FEATURE_ERROR_CODES } from './feature-error-codes.js';

/**
 * Every stable error code the mesh can return, with whether a caller may retry it.
 * Keep docs/errors.md in step: a test fails when a code is missing there.
 */
export const ERROR_CODES = {
  CONFIG_INVALID: {
    retryable: false,
    status: 400,
    summary: 'mesh.yaml (or another config file) failed validation',
  },
  CONFIG_VAULT_KEY_WRONG: {
    retryable: false,
    status: 500,
    summary: 'the vault key does not open the vault file (OPENLEGION_VAULT_KEY or <data_dir>/vault.key)',
  },
  CONFIG_VAULT_UNREADABLE: {
    retryable: false,
    status: 500,
    summary: 'the vault file is not one this version can read',
  },
  CONFIG_NOT_FOUND: { retryable: false, status: 404, summary: 'the config file does not exist' },
  REQUEST_INVALID: {
    retryable: false,
    status: 400,
    summary: 'a request body or parameter failed validation',
  },
  NOT_FOUND: { retryable: false, status: 404, summary: 'no such route' },
  AUTH_MISSING: { retryable: false, status: 401, summary: 'no bearer token was sent' },
  AUTH_INVALID: { retryable: false, status: 401, summary: 'the bearer token is not valid for this server' },
  AUTH_FORBIDDEN: { retryable: false, status: 403, summary: 'the token is valid but may not do this' },
  LLM_MODEL_INVALID: {
    retryable: false,
    status: 400,
    summary:
      'the model name is not provider/model or a known tier, or the model cannot do what was asked (embeddings from Anthropic)',
  },
  LLM_CONTEXT_OVERFLOW: {
    retryable: false,
    status: 400,
    summary: "the prompt is longer than the model's context window; compact the conversation and retry",
  },
  LLM_MODEL_FORBIDDEN: {
    retryable: false,
    status: 403,
    summary:
      'an agent may call its own model, the tiers, the fallbacks and the embedding model, nothing else',
  },
  LLM_PROVIDER_UNKNOWN: {
    retryable: false,
    status: 400,
    summary: 'the model names a provider mesh.yaml does not configure',
  },
  LLM_PROVIDER_KEY_MISSING: {
    retryable: false,
    status: 500,
    summary: "the provider's key is not in the host environment",
  },
  LLM_PROVIDER_ERROR: { retryable: false, status: 502, summary: 'the provider answered with an error' },
  LLM_REQUEST_REJECTED: {
    retryable: false,
    status: 400,
    summary:
      "the provider refused the request as invalid (its 400); the message carries the provider's reason; sent again it fails again",
  },
  LLM_MODEL_NOT_FOUND: {
    retryable: false,
    status: 404,
    summary: 'the provider does not know the model (its 404); check the model name in mesh.yaml',
  },
  LLM_REQUEST_TOO_LARGE: {
    retryable: false,
    status: 413,
    summary: 'the provider refused the request as too large (its 413); send less',
  },
  LLM_REQUEST_UNPROCESSABLE: {
    retryable: false,
    status: 422,
    summary:
      "the provider could not process the request (its 422); the message carries the provider's reason",
  },
  LLM_PROVIDER_UNAVAILABLE: {
    retryable: true,
    status: 503,
    summary: 'the provider could not be reached or is overloaded',
  },
  AGENT_UNKNOWN: { retryable: false, status: 404, summary: 'no agent of that name in this mesh' },
  AGENT_NOT_READY: { retryable: true, status: 503, summary: 'the agent is not running or not ready yet' },
  AGENT_START_FAILED: { retryable: false, status: 500, summary: 'an agent did not become ready' },
  AGENT_BUSY: { retryable: true, status: 409, summary: 'the agent is already answering a chat' },
  AGENT_LLM_FAILED: {
    retryable: true,
    status: 502,
    summary: 'the agent could not get an answer from the LLM proxy',
  },
  MESH_PORT_IN_USE: { retryable: false, status: 500, summary: 'the host port is taken by another process' },
  MESH_NETWORK_UNLOCKED: {
    retryable: false,
    status: 500,
    summary:
      'the network lockdown could not be installed (root and iptables needed); start anyway only with --allow-unlocked-network or runtime.allow_unlocked_network',
  },
  MESH_NOT_RUNNING: { retryable: false, status: 503, summary: 'no host is running for this mesh' },
  SWARM_NOT_MANAGER: {
    retryable: false,
    status: 500,
    summary:
      'runtime.kind swarm needs a Docker engine that is an active swarm manager; run `docker swarm init` (or start on a manager)',
  },
  SWARM_NAME_TAKEN: {
    retryable: false,
    status: 409,
    summary:
      "a swarm network, secret or service the mesh needs exists and is not the mesh's; remove it or rename the mesh",
  },
  SWARM_IMAGE_MISSING: {
    retryable: false,
    status: 500,
    summary:
      'a swarm node could not run the agent image (not built there, not pushed to runtime.registry); build or push it',
  },
  SWARM_PUSH_FAILED: {
    retryable: true,
    status: 502,
    summary: 'the registry named in runtime.registry refused or failed the push of the agent image',
  },
  SWARM_HOST_NOT_IN_CONTAINER: {
    retryable: false,
    status: 500,
    summary:
      'with runtime.kind swarm the host runs in its own container on the overlays; start it with `openlegion start`',
  },
  MESH_RUNTIME_UNAVAILABLE: {
    retryable: false,
    status: 500,
    summary: 'the agent runtime (Docker engine) is not available',
  },
  MESH_QUEUE_FULL: {
    retryable: true,
    status: 429,
    summary: "the agent's lane queue is full; try again once it has worked some off",
  },
  BUDGET_EXCEEDED: {
    retryable: false,
    status: 402,
    summary:
      "the call could cost more than what is left of the agent's budget (a temporary agent an agent spawned also draws on its spawner's); the message names the budget, whose it is, and when it resets",
  },
  MESH_HTTP_FAILED: {
    retryable: true,
    status: 502,
    summary: 'the outbound request made for the agent (/mesh/http) failed or timed out',
  },
  SEARCH_QUERY_INVALID: {
    retryable: false,
    status: 400,
    summary: 'a web search query is empty or longer than 400 characters; the message says which',
  },
  SEARCH_NOT_CONFIGURED: {
    retryable: false,
    status: 503,
    summary: "mesh.yaml's search: names no provider; the message says how to add SearXNG, Brave or Tavily",
  },
  SEARCH_UNAVAILABLE: {
    retryable: true,
    status: 503,
    summary:
      'no search provider answered (each failed, timed out, refused its key or is cooling down); the message names each and why',
  },
  SEARCH_BUSY: {
    retryable: true,
    status: 429,
    summary: 'the agent has 4 web searches running already; wait for one to answer',
  },
  MCP_SERVER_UNKNOWN: {
    retryable: false,
    status: 404,
    summary:
      "no remote MCP server of that name under mesh.yaml's mcp.servers (or it is a stdio server, which the agent runs itself); the message lists the remote ones",
  },
  MCP_TRANSPORT_MISMATCH: {
    retryable: false,
    status: 400,
    summary:
      'the remote MCP server speaks the other transport (mcp.servers.NAME.transport); the message names the path to use',
  },
  MCP_BUSY: {
    retryable: true,
    status: 429,
    summary: 'the agent has 8 requests or streams to remote MCP servers open already; wait for one to end',
  },
  MCP_SESSION_UNKNOWN: {
    retryable: false,
    status: 404,
    summary:
      'no session of that id for this agent and server: a legacy SSE stream that ended (reconnect to /mesh/mcp/NAME/sse), or an Mcp-Session-Id the server did not give this agent through the host (initialize anew)',
  },
  MCP_CREDENTIAL_MISSING: {
    retryable: false,
    status: 503,
    summary:
      "the vault has no entry for the remote MCP server's auth (bearer or OAuth client_secret); the message says how to set it",
  },
  MCP_UPSTREAM_AUTH: {
    retryable: false,
    status: 502,
    summary:
      "the remote MCP server (or its OAuth token endpoint) refused the host's credential (401/403); the message names the server and the vault entry",
  },
  MCP_UPSTREAM_FAILED: {
    retryable: true,
    status: 502,
    summary:
      'the remote MCP server could not be reached, answered 5xx or a redirect, or sent a bad or foreign SSE endpoint; the message says which',
  },
  MCP_UPSTREAM_TIMEOUT: {
    retryable: true,
    status: 504,
    summary: 'the remote MCP server did not answer within mcp.servers.NAME.timeout_ms',
  },
  MESH_FORBIDDEN: {
    retryable: false,
    status: 403,
    summary: "the agent's permissions in mesh.yaml do not allow this; the message names the missing one",
  },
  MESH_CREDENTIAL_FORBIDDEN: {
    retryable: false,
    status: 403,
    summary:
      'a $CRED{NAME} was placed where its grant does not allow (another header, the body, a host not in its hosts); the message names what the grant allows',
  },
  MESH_KEY_NOT_FOUND: {
    retryable: false,
    status: 404,
    summary: 'no blackboard entry under that key (or it expired)',
  },
  MESH_VERSION_CONFLICT: {
    retryable: false,
    status: 409,
    summary: 'the blackboard entry is not at the version given in if_version; read it again',
  },
  MESH_VALUE_TOO_LARGE: { retryable: false, status: 413, summary: 'the value is larger than the cap' },
  MESH_LANE_ITEM_UNKNOWN: { retryable: false, status: 404, summary: 'no lane item with that id' },
  MESH_ASK_TIMEOUT: { retryable: true, status: 504, summary: 'the asked agent did not answer in time' },
  SPAWN_TEMPLATE_UNKNOWN: {
    retryable: false,
    status: 404,
    summary: 'no template of that name under templates in mesh.yaml; the message lists those there are',
  },
  SPAWN_LIMIT_REACHED: {
    retryable: true,
    status: 429,
    summary:
      'as many temporary agents run as limits.temporary_agents_per_agent (for this spawner) or limits.temporary_agents (the fleet) allows; wait for one to finish',
  },
  SPAWN_UNKNOWN: {
    retryable: false,
    status: 404,
    summary: 'no temporary agent of that name was spawned by this caller',
  },
  MESH_STREAM_LIMIT: {
    retryable: true,
    status: 429,
    summary: 'the agent has as many SSE streams open as limits.streams_per_agent allows; close one first',
  },
  LLM_CALL_LIMIT: {
    retryable: true,
    status: 429,
    summary:
      'the agent has as many LLM calls running as limits.llm_calls_per_agent allows; wait for one to finish',
  },
  MESH_STREAM_TOO_SLOW: {
    retryable: true,
    status: 503,
    summary:
      'the SSE stream was ended: its reader left more unsent than limits.stream_backlog_bytes; read faster and reconnect',
  },
  MESH_RATE_LIMITED: {
    retryable: true,
    status: 429,
    summary:
      'the agent sends the host more requests than limits.requests_per_agent_per_s, or writes to the blackboard and pub/sub faster than limits.write_bytes_per_agent_per_s; the message says which and when to retry',
  },
  MESH_QUOTA_EXCEEDED: {
    retryable: false,
    status: 429,
    summary:
      "the write would take the agent past one of its quotas in mesh.yaml's limits; the message names it",
  },
  AGENT_TURN_INTERRUPTED: {
    retryable: false,
    status: 409,
    summary: 'the running turn was interrupted by a newer message (lane mode interrupt)',
  },
  AGENT_LOOP_DETECTED: {
    retryable: false,
    status: 422,
    summary: 'the model repeated the same tool call with the same arguments 9 times; the turn was ended',
  },
  AGENT_WORKSPACE_PATH_INVALID: {
    retryable: false,
    status: 400,
    summary: 'a workspace path is absolute, has "..", or leads outside the workspace through a symlink',
  },
  AGENT_WORKSPACE_FILE_NOT_FOUND: { retryable: false, status: 404, summary: 'no such file in the workspace' },
  AGENT_WORKSPACE_FILE_TOO_LARGE: {
    retryable: false,
    status: 413,
    summary: 'a workspace file is larger than the 1 MiB the workspace API serves',
  },
  SKILL_INVALID: {
    retryable: false,
    status: 400,
    summary:
      'a skill folder cannot be installed: no SKILL.md, bad frontmatter, a name unlike the rules, oversize, or a symlink out of it',
  },
  SKILL_NOT_FOUND: { retryable: false, status: 404, summary: 'no installed skill of that name' },
  AGENT_HUNG: {
    retryable: true,
    status: 504,
    summary: 'the lane watchdog ended a turn that made no progress',
  },
  AGENT_MCP_SERVER_UNKNOWN: {
    retryable: false,
    status: 404,
    summary: 'the agent has no MCP server of that name (mesh.yaml agents.NAME.mcp or permissions.mcp)',
  },
  AGENT_MCP_TOOL_UNKNOWN: {
    retryable: false,
    status: 404,
    summary: 'the MCP server offers no tool of that name',
  },
  AGENT_MCP_SERVER_UNAVAILABLE: {
    retryable: true,
    status: 503,
    summary: 'the MCP server did not start, or crashed and is being restarted',
  },
  STORE_SCHEMA_NEWER: {
    retryable: false,
    status: 500,
    summary: 'a database file has a newer schema than this code knows; upgrade openlegion',
  },
  MEM_QUERY_INVALID: {
    retryable: false,
    status: 400,
    summary: 'a memory query is empty or longer than the limit',
  },
  MEM_SCOPE_INVALID: {
    retryable: false,
    status: 400,
    summary:
      "a memory scope is not global or kind:id (agent, project, user, squad, custom), or, on the host's shared memory routes, not a shared scope (global, squad:NAME)",
  },
  MEM_CATEGORY_INVALID: { retryable: false, status: 400, summary: 'a memory category name is malformed' },
  MEM_CATEGORY_UNKNOWN: { retryable: false, status: 404, summary: 'no memory category of that name' },
  MEM_ITEM_NOT_FOUND: { retryable: false, status: 404, summary: 'no memory item with that id' },
  LCM_SUMMARY_NOT_FOUND: {
    retryable: false,
    status: 404,
    summary: 'no readable context summary with that id',
  },
  MEM_IMPORT_INVALID: {
    retryable: false,
    status: 400,
    summary: 'a memory import has invalid lines (listed by line number); nothing was imported',
  },
  MEM_EMBEDDING_MISMATCH: {
    retryable: false,
    status: 409,
    summary: 'the embedder differs from the one the memory store was built with; run reembed',
  },
  MEM_EMBEDDER_UNAVAILABLE: {
    retryable: true,
    status: 503,
    summary: 'the embedding service could not be reached or answered badly',
  },
  MEM_STORE_UNAVAILABLE: {
    retryable: false,
    status: 500,
    summary: 'the memory database or its sqlite-vec extension could not be opened',
  },
  ...FEATURE_ERROR_CODES,
  INTERNAL: { retryable: false, status: 500, summary: 'an unexpected fault; see the host log' },
} as const satisfies Record<string, { retryable: boolean; status: number; summary: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
