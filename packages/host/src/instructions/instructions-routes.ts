import {
  INSTRUCTION_FILE_MAX_BYTES,
  INSTRUCTION_FILES,
  type InstructionFile,
  type MeshConfig,
  OpenLegionError,
} from '@openlegion/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireAgent } from '../auth/index.js';
import type { InstructionStore } from './instruction-store.js';

/**
 * The instruction file a workspace path names, whatever its case (`agents.md`, `./SOUL.md`), or
 * undefined for any other path. Operator reads and writes of these names go to the host's copy.
 */
export function instructionFileOf(path: string): InstructionFile | undefined {
  const segments = path.split(/[\\/]+/).filter((segment) => segment !== '' && segment !== '.');
  if (segments.length !== 1) return undefined;
  const name = segments[0]?.toLowerCase();
  return INSTRUCTION_FILES.find((file) => file.toLowerCase() === name);
}

/** The weak validator of an agent's instructions: their version, quoted as HTTP wants it. */
const etagOf = (version: number) => `"${version}"`;

/** `GET /mesh/instructions` for agents: the caller's own files only, cheap to ask every turn. */
export function registerInstructionRoutes(app: FastifyInstance, store: () => InstructionStore): void {
  app.get('/mesh/instructions', { config: { auth: 'agent' } }, async (request, reply) => {
    const instructions = store().get(requireAgent(request));
    const etag = etagOf(instructions.version);
    reply.header('etag', etag).header('cache-control', 'no-cache');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return instructions;
  });
}

/**
 * The operator's `GET|PUT /api/agents/:agent/workspace/AGENTS.md` (and SOUL.md), answered from the
 * host's copy instead of the agent's workspace. GET answers the text (404 while the host holds
 * none: the agent then uses its built-in template); PUT stores the raw body as the new text.
 */
export async function serveOperatorInstruction(
  deps: { store: InstructionStore; config: MeshConfig },
  request: FastifyRequest,
  reply: FastifyReply,
  target: { agent: string; file: InstructionFile },
): Promise<FastifyReply> {
  const { agent, file } = target;
  if (!Object.hasOwn(deps.config.agents, agent)) {
    const agents = Object.keys(deps.config.agents);
    throw new OpenLegionError(
      'AGENT_UNKNOWN',
      `no agent "${agent}" (agents: ${agents.join(', ') || 'none'})`,
      {
        details: { agents },
      },
    );
  }
  if (request.method === 'PUT') {
    const text = instructionText(file, Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));
    const version = deps.store.put(agent, file, text);
    return reply.code(200).send({ file, bytes: Buffer.byteLength(text), version });
  }
  if (request.method !== 'GET') {
    throw new OpenLegionError('REQUEST_INVALID', `${request.method} ${file}: only GET and PUT are allowed`, {
      details: { field: 'method' },
    });
  }
  const instructions = deps.store.get(agent);
  const text = instructions.files[file];
  if (text === null) {
    throw new OpenLegionError(
      'AGENT_WORKSPACE_FILE_NOT_FOUND',
      `the host holds no ${file} for agent "${agent}": it uses its built-in template. ` +
        `Write one with PUT /api/agents/${agent}/workspace/${file}`,
      { details: { agent, file } },
    );
  }
  return reply.type('text/plain; charset=utf-8').header('etag', etagOf(instructions.version)).send(text);
}

/** The body as text: within the size limit and valid UTF-8, or a 4xx naming the file. */
function instructionText(file: InstructionFile, body: Buffer): string {
  if (body.length > INSTRUCTION_FILE_MAX_BYTES) {
    throw new OpenLegionError(
      'AGENT_WORKSPACE_FILE_TOO_LARGE',
      `${file} is ${body.length} bytes; the limit is ${INSTRUCTION_FILE_MAX_BYTES}`,
      { details: { field: 'body' } },
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch (cause) {
    throw new OpenLegionError('REQUEST_INVALID', `${file} must be UTF-8 text; send the file as it is`, {
      cause,
      details: { field: 'body' },
    });
  }
}
