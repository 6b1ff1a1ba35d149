import { parseRequest } from '@openlegion/infra/http';
import { OpenLegionError } from '@openlegion/protocol';
import { z } from 'zod';
import { requireAgent } from '../auth/index.js';
import type { FeatureContext, HostFeature } from '../features/index.js';
import { MeshPermissions } from '../permissions/index.js';
import { outboundRequest } from './outbound-request.js';

const CREDENTIAL = /\$CRED\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
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
 * Credentials without exposure. `GET /mesh/vault` lists the names an agent may use
 * (`permissions.credentials`); `POST /mesh/http` makes a request for it with `$CRED{NAME}`
 * replaced on the host — in headers, query and body — under the agent's egress policy, with size
 * and time caps, and every secret it used scrubbed from what comes back. No value enters a container.
 */
export function credentialsFeature(options: { egress: EgressDecider }): HostFeature {
  return {
    name: 'credentials',
    routes(app, context) {
      const permissions = MeshPermissions.of(context.config);
      app.get('/mesh/vault', { config: { auth: 'agent' } }, async (request) => {
        const agent = requireAgent(request);
        const granted = context.config.agents[agent]?.permissions.credentials ?? [];
        return {
          credentials: granted.filter((name) => !name.includes('*') && secretOf(context, name) !== undefined),
        };
      });

      app.post('/mesh/http', { config: { auth: 'agent' } }, async (request) => {
        const agent = requireAgent(request);
        const call = parseRequest(httpRequestSchema, request.body);
        const used = new Map<string, string>();
        const fill = (text: string) =>
          text.replace(CREDENTIAL, (_match, name: string) => {
            permissions.require(agent, 'credentials', name);
            const value = secretOf(context, name);
            if (value === undefined)
              throw new OpenLegionError(
                'REQUEST_INVALID',
                `$CRED{${name}}: no such credential (openlegion vault set ${name})`,
                {
                  details: { credential: name },
                },
              );
            used.set(name, value);
            return value;
          });
        const url = new URL(call.url);
        if (/\$CRED\{/.test(call.url.split('/')[2] ?? ''))
          throw new OpenLegionError('REQUEST_INVALID', 'url: $CRED{} is not allowed in the host name');
        for (const [key, value] of Object.entries(call.query)) url.searchParams.set(key, fill(value));
        const headers = Object.fromEntries(
          Object.entries(call.headers).map(([key, value]) => [key, fill(value)]),
        );
        const rawBody =
          call.body === undefined
            ? undefined
            : typeof call.body === 'string'
              ? call.body
              : JSON.stringify(call.body);
        const body = rawBody === undefined ? undefined : fill(rawBody);
        if (body !== undefined && typeof call.body !== 'string' && !headers['content-type'])
          headers['content-type'] = 'application/json';
        const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
        const decision = await options.egress.decide(agent, url.hostname, port);
        if (decision.invalid)
          throw new OpenLegionError('REQUEST_INVALID', `url: ${decision.reason}`, {
            details: { host: url.hostname, port },
          });
        if (!decision.allowed || !decision.address)
          throw new OpenLegionError('MESH_FORBIDDEN', `egress refused: ${decision.reason}`, {
            details: { agent, host: url.hostname },
          });
        const answer = await outboundRequest({
          url,
          address: decision.address,
          method: call.method,
          headers,
          body,
          timeoutMs: call.timeout_s * 1000,
          maxBytes: MAX_RESPONSE_BYTES,
        });
        context.logger.info(
          {
            agent,
            method: call.method,
            host: url.host,
            status: answer.status,
            credentials: [...used.keys()],
          },
          'mesh http request',
        );
        const scrub = (text: string) =>
          [...used].reduce((clean, [name, value]) => clean.split(value).join(`[$CRED{${name}}]`), text);
        return {
          status: answer.status,
          headers: Object.fromEntries(
            Object.entries(answer.headers).map(([key, value]) => [key, scrub(value)]),
          ),
          body: scrub(answer.body),
          truncated: answer.truncated,
        };
      });
    },
  };
}

/** The value of a credential: `vault:NAME` first, so a vault entry is the usual place. */
function secretOf(context: FeatureContext, name: string): string | undefined {
  return context.secrets.lookup({ scheme: 'vault', name });
}
