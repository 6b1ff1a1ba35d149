import { parseRequest } from '@openlegion/infra/http';
import { isOpenLegionError, OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireAgent } from '../auth/index.js';
import { EGRESS } from '../egress/index.js';
import type { FeatureContext, HostFeature } from '../features/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { CredentialGrants } from './credential-grants.js';
import { buildOutboundCall, type CredentialFill } from './outbound-call.js';
import { outboundRequest } from './outbound-request.js';
import { SecretScrubber } from './secret-scrubber.js';

const CREDENTIAL = /\$CRED\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** The most of an answer's body handed back to the agent. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_S = 30;

const httpRequestSchema = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET'),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).default({}),
    query: z.record(z.string(), z.string()).default({}),
    /** A string is sent as is; anything else as JSON. */
    body: z.unknown().optional(),
    timeout_s: z.number().int().positive().max(120).default(DEFAULT_TIMEOUT_S),
  })
  .strict();

/** What the route needs of the egress proxy: the same decision, the same allowlist. */
export interface EgressDecider {
  decide(
    agent: string,
    host: string,
    port: number,
  ): Promise<{ allowed: boolean; address?: string; reason?: string; invalid?: boolean }>;
}

/**
 * Credentials without exposure. `GET /mesh/vault` lists the credentials an agent may use, each with
 * the hosts and places its grant allows; `POST /mesh/http` makes a request for it with
 * `$CRED{NAME}` replaced on the host — only where the grant allows — under the agent's egress
 * policy, with size and time caps, and every secret it may use scrubbed (in its common encodings,
 * before any cut) from what comes back. No value enters a container.
 */
export function credentialsFeature(
  options: {
    /** The decider to use instead of the egress feature's (tests); without it, the feature needs EGRESS. */
    egress?: EgressDecider;
  } = {},
): HostFeature {
  return {
    name: 'credentials',
    needs: options.egress ? [] : [EGRESS],
    build(context) {
      const egress = options.egress ?? context.need(EGRESS);
      return { routes: (app) => registerCredentialRoutes(app, context, egress) };
    },
  };
}

function registerCredentialRoutes(
  app: FastifyInstance,
  context: FeatureContext,
  egress: EgressDecider,
): void {
  const permissions = MeshPermissions.of(context.config);
  const grants = CredentialGrants.of(context.config);
  app.get('/mesh/vault', { config: { auth: 'agent' } }, async (request) => {
    const agent = requireAgent(request);
    return {
      credentials: grants.list(agent).filter(({ name }) => secretOf(context, name) !== undefined),
    };
  });

  // The operator's view (the dashboard's vault page): every agent's granted credentials by name,
  // with whether the secret is set. Never a value.
  app.get('/api/credentials', { config: { auth: 'operator' } }, async () => ({
    credentials: Object.keys(context.config.agents).flatMap((agent) =>
      grants
        .list(agent)
        .map((grant) => ({ agent, ...grant, set: secretOf(context, grant.name) !== undefined })),
    ),
  }));

  app.post('/mesh/http', { config: { auth: 'agent' } }, async (request) => {
    const agent = requireAgent(request);
    const call = parseRequest(httpRequestSchema, request.body);
    const host = new URL(call.url).hostname;
    const used = new Map<string, string>();
    const fill: CredentialFill = (text, place, encode = (value) => value) =>
      text.replace(CREDENTIAL, (_match, name: string) => {
        permissions.require(agent, 'credentials', name);
        grants.requirePlace(agent, name, place, host);
        const value = secretOf(context, name);
        if (value === undefined)
          throw new OpenLegionError(
            'REQUEST_INVALID',
            `$CRED{${name}}: no such credential (openlegion vault set ${name})`,
            { details: { credential: name } },
          );
        used.set(name, value);
        return encode(value);
      });
    const outbound = buildOutboundCall(call, fill);
    // Every credential the agent may use is scrubbed, not only those sent now: an answer can
    // hold one sent earlier (stored, then fetched).
    const scrubber = new SecretScrubber(grantedSecrets(context, grants, agent));
    const port = Number(outbound.url.port || (outbound.url.protocol === 'https:' ? 443 : 80));
    const decision = await egress.decide(agent, outbound.url.hostname, port);
    if (decision.invalid)
      throw new OpenLegionError('REQUEST_INVALID', `url: ${decision.reason}`, {
        details: { host: outbound.url.hostname, port },
      });
    if (!decision.allowed || !decision.address)
      throw new OpenLegionError('MESH_FORBIDDEN', `egress refused: ${decision.reason}`, {
        details: { agent, host: outbound.url.hostname },
      });
    // Ask for the answer uncompressed: a compressed one cannot be scrubbed.
    outbound.headers['accept-encoding'] ??= 'identity';
    const answer = await outboundRequest({
      ...outbound,
      address: decision.address,
      method: call.method,
      timeoutMs: call.timeout_s * 1000,
      readBytes: MAX_RESPONSE_BYTES + scrubber.lookaheadBytes,
    }).catch((error: unknown) => {
      // Scrubbed in case a failure quotes the request; the cause stays out for the same reason.
      throw isOpenLegionError(error)
        ? new OpenLegionError(error.code, scrubber.scrubText(error.message), { details: error.details })
        : error;
    });
    context.logger.info(
      {
        agent,
        method: call.method,
        host: outbound.url.host,
        status: answer.status,
        credentials: [...used.keys()],
      },
      'mesh http request',
    );
    if (!scrubber.empty && !['', 'identity'].includes(answer.contentEncoding.toLowerCase()))
      throw new OpenLegionError(
        'MESH_HTTP_FAILED',
        `${outbound.url.host} answered compressed (content-encoding: ${answer.contentEncoding}) though asked for identity; a compressed answer cannot be scrubbed of credentials, so it is not returned`,
        { details: { host: outbound.url.host } },
      );
    return {
      status: answer.status,
      headers: Object.fromEntries(
        Object.entries(answer.headers).map(([key, value]) => [key, scrubber.scrubText(value)]),
      ),
      // Scrubbed first, then cut: a secret straddling the cap is replaced whole.
      body: scrubber.scrub(answer.body, MAX_RESPONSE_BYTES),
      truncated: answer.cut || answer.body.length > MAX_RESPONSE_BYTES,
    };
  });
}

/** The value of a credential: `vault:NAME` first, so a vault entry is the usual place. */
function secretOf(context: FeatureContext, name: string): string | undefined {
  return context.secrets.lookup({ scheme: 'vault', name });
}

/** The values of every credential `agent` is granted that exists, by name. */
function grantedSecrets(
  context: FeatureContext,
  grants: CredentialGrants,
  agent: string,
): Map<string, string> {
  const secrets = new Map<string, string>();
  for (const { name } of grants.list(agent)) {
    const value = secretOf(context, name);
    if (value !== undefined) secrets.set(name, value);
  }
  return secrets;
}
