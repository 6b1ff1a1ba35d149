import type { AgentTool } from '@openlegion/protocol';
import { fenceUntrusted } from '@openlegion/protocol';
import { z } from 'zod';
import type { MeshClient } from '../mesh/mesh-client.js';
import { guardTool } from '../tool-failure.js';

/** Most characters of an answer's body shown to the model (the host caps the body at 1 MB). */
export const HTTP_BODY_MAX_CHARS = 50_000;
const DEFAULT_TIMEOUT_S = 30;

const httpRequestInput = z.object({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET').describe('HTTP method'),
  url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }).describe('Full http(s) URL'),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .describe(
      'Request headers; write $CRED{NAME} where a secret goes, e.g. "Bearer $CRED{GITHUB_TOKEN}" (only in the header its grant names). Host, Connection, Content-Length and other transport headers are set by the host',
    ),
  query: z.record(z.string(), z.string()).default({}).describe('Query parameters added to the URL'),
  body: z.unknown().optional().describe('Request body: a string is sent as is, anything else as JSON'),
  timeout_s: z
    .number()
    .int()
    .positive()
    .max(120)
    .default(DEFAULT_TIMEOUT_S)
    .describe('Seconds to wait for the answer'),
});

/**
 * `http_request`: an API call made by the host (`POST /mesh/http`) under the agent's egress
 * policy. `$CRED{NAME}` placeholders pass through untouched; the host fills them from the vault,
 * only on the hosts and in the places each grant names, and scrubs the secrets from the answer, so
 * no credential ever reaches the agent.
 */
export function createHttpRequestTool(mesh: MeshClient): AgentTool<z.infer<typeof httpRequestInput>> {
  return {
    name: 'http_request',
    group: 'web',
    description:
      'Call an HTTP API; get the raw answer. $CRED{NAME} uses a granted credential, only on the hosts and in the place (a header, query, body or path) its grant names; a refusal says where it may go. To read a web page use web_fetch.',
    input: httpRequestInput,
    run: (input, context) =>
      guardTool(async () => {
        const answer = answerSchema.parse(
          await mesh.call({
            method: 'POST',
            path: '/mesh/http',
            body: input,
            signal: context.signal,
            traceId: context.traceId,
            timeoutMs: (input.timeout_s + 5) * 1000,
          }),
        );
        const headers = Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`);
        const body = answer.body.slice(0, HTTP_BODY_MAX_CHARS);
        const notes = [
          ...(answer.truncated ? ['the host cut the body at its 1 MB cap'] : []),
          ...(answer.body.length > body.length
            ? [`body shown up to ${HTTP_BODY_MAX_CHARS} of ${answer.body.length} characters`]
            : []),
        ];
        const text = [
          `HTTP ${answer.status}`,
          ...headers,
          ...(notes.length ? [`[${notes.join('; ')}]`] : []),
          body ? fenceUntrusted(`http_request ${input.method} ${input.url}`, body) : '(empty body)',
        ].join('\n');
        return { content: [{ type: 'text', text }], ...(answer.status >= 400 ? { isError: true } : {}) };
      }),
  };
}

const answerSchema = z.object({
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  truncated: z.boolean().default(false),
});
