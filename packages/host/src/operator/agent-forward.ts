import { parseRequest } from '@openlegion/infra/http';
import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AgentInstructions, instructionFileOf } from '../instructions/index.js';
import { type AgentChatDeps, reachableAgent } from '../lanes/index.js';
import { abortOnClientClose, sendUpstream } from '../server/index.js';

/** The agent routes the operator reaches through the host (the host holds the agent's token). */
export const FORWARDED_AGENT_ROUTES = ['memory', 'workspace', 'lcm', 'mcp', 'skills', 'subagents'] as const;

const forwardParams = z.object({ agent: z.string().min(1), '*': z.string() });
/** `?from=workspace` reads the agent's own (ignored) copy of AGENTS.md or SOUL.md, e.g. to keep it. */
const forwardQuery = z.object({ from: z.enum(['workspace']).optional() });

/** Where the operator's AGENTS.md and SOUL.md live: the host, not the agent's workspace. */
export type AgentInstructionAccess = Pick<AgentInstructions, 'serveOperator'>;

/** Imports of a whole memory may be large. */
const FORWARD_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * `/api/agents/:agent/memory/*`, `/api/agents/:agent/workspace/*`, `/api/agents/:agent/lcm/*` and
 * `/api/agents/:agent/mcp/*` for the operator: forwarded to the agent's own routes of the same
 * name with the agent's token; answers pass through.
 * `workspace/AGENTS.md` and `workspace/SOUL.md` (any case) are the exception: they read and write
 * the host's copy, which the agent cannot change (only a GET with `?from=workspace` is forwarded).
 */
export function registerAgentForwarding(
  app: FastifyInstance,
  deps: Pick<AgentChatDeps, 'registry' | 'tokens'> & { instructions: AgentInstructionAccess },
): void {
  app.register(async (scope) => {
    // Bodies pass through as they came (JSON, JSON lines, file text).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: FORWARD_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    for (const prefix of FORWARDED_AGENT_ROUTES) {
      scope.all(
        `/api/agents/:agent/${prefix}/*`,
        { config: { auth: 'operator' } },
        async (request, reply) => {
          const params = parseRequest(forwardParams, request.params, 'params');
          const file = prefix === 'workspace' ? instructionFileOf(params['*']) : undefined;
          if (file && !readsWorkspaceCopy(request))
            return deps.instructions.serveOperator(request, reply, { agent: params.agent, file });
          const { url, token } = reachableAgent(deps, params.agent);
          const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
          const contentType = request.headers['content-type'];
          const signal = abortOnClientClose(reply);
          const upstream = await fetch(`${url}/${prefix}/${params['*']}${query}`, {
            method: request.method,
            headers: {
              authorization: `Bearer ${token}`,
              ...(contentType ? { 'content-type': contentType } : {}),
            },
            ...(Buffer.isBuffer(request.body) && request.body.length > 0 ? { body: request.body } : {}),
            signal,
          }).catch((error: unknown) => {
            if (signal.aborted) throw error;
            // An agent that died since its last health probe: the operator may retry once it is back.
            throw new OpenLegionError(
              'AGENT_NOT_READY',
              `agent "${params.agent}" did not answer at ${url}: ${(error as Error).message}`,
              { cause: error, details: { agent: params.agent } },
            );
          });
          return sendUpstream(reply, upstream);
        },
      );
    }
  });
}

/** `GET ...?from=workspace`: the one request for AGENTS.md or SOUL.md that goes to the agent. */
function readsWorkspaceCopy(request: FastifyRequest): boolean {
  return request.method === 'GET' && parseRequest(forwardQuery, request.query, 'query').from === 'workspace';
}
