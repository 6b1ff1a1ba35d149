import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { TokenRegistry } from '../auth/index.js';
import { egressFeature } from '../egress/index.js';
import { environmentSecrets } from '../secrets/index.js';
import { credentialsFeature } from './credentials-feature.js';

const SECRET = 'ghp_0123456789secretvalue';

describe('credentials without exposure', () => {
  let site: Server;
  let siteUrl: string;
  const seen: Array<{ url: string; authorization: string | undefined; body: string }> = [];
  let host: FeatureTestHost;

  beforeAll(async () => {
    site = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        seen.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
        if (req.url?.startsWith('/huge')) return res.end('x'.repeat(2 * 1024 * 1024));
        // An API that echoes what it got: the secret must not come back to the agent.
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ url: req.url, authorization: req.headers.authorization, body }));
      });
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const sitePort = (site.address() as AddressInfo).port;
    siteUrl = `http://127.0.0.1:${sitePort}`;
    const config: MeshConfigInput = {
      llm: { providers: { openai: {} } },
      agents: {
        coder: {
          permissions: {
            credentials: ['GITHUB_TOKEN', 'MISSING_TOKEN'],
            egress: ['127.0.0.1/32'],
            egress_ports: [80, sitePort],
          },
        },
        writer: { permissions: { egress: ['127.0.0.1/32'], egress_ports: [sitePort] } },
      },
    };
    const tokens = new TokenRegistry();
    const egress = egressFeature({ tokens });
    host = await startFeatureTestHost([egress, credentialsFeature({ egress })], config, {
      tokens,
      secrets: environmentSecrets({ GITHUB_TOKEN: SECRET }),
    });
  });
  afterAll(async () => {
    await host.stop();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });

  const http = (agent: string, payload: object) =>
    host.app.inject({ method: 'POST', url: '/mesh/http', headers: host.agentAuth(agent), payload });

  it('lists the credentials an agent may use that exist, by name only', async () => {
    const listed = await host.app.inject({ url: '/mesh/vault', headers: host.agentAuth('coder') });
    expect(listed.json()).toEqual({ credentials: ['GITHUB_TOKEN'] });
    expect(listed.body).not.toContain(SECRET);
  });

  it('substitutes $CRED{NAME} on the host in headers, query and body, and scrubs it from the answer', async () => {
    const answer = await http('coder', {
      method: 'POST',
      url: `${siteUrl}/repos`,
      headers: { authorization: 'Bearer $CRED{GITHUB_TOKEN}' },
      query: { token: '$CRED{GITHUB_TOKEN}' },
      body: { note: 'sent with $CRED{GITHUB_TOKEN}' },
    });
    expect(answer.statusCode).toBe(200);
    expect(seen.at(-1)).toEqual({
      url: `/repos?token=${SECRET}`,
      authorization: `Bearer ${SECRET}`,
      body: JSON.stringify({ note: `sent with ${SECRET}` }),
    });
    expect(answer.body).not.toContain(SECRET);
    expect(JSON.parse(answer.json().body)).toEqual({
      url: '/repos?token=[$CRED{GITHUB_TOKEN}]',
      authorization: 'Bearer [$CRED{GITHUB_TOKEN}]',
      body: JSON.stringify({ note: 'sent with [$CRED{GITHUB_TOKEN}]' }),
    });
  });

  it('refuses a credential outside the permissions, a missing one, and a host outside egress; caps the answer', async () => {
    const forbidden = await http('writer', {
      url: siteUrl,
      headers: { authorization: '$CRED{GITHUB_TOKEN}' },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.message).toContain('may not credentials "GITHUB_TOKEN"');
    const missing = await http('coder', { url: siteUrl, headers: { authorization: '$CRED{MISSING_TOKEN}' } });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toContain('$CRED{MISSING_TOKEN}: no such credential');
    const before = seen.length;
    const elsewhere = await http('coder', { url: 'http://10.0.0.1/', headers: {} });
    expect(elsewhere.statusCode).toBe(403);
    expect(elsewhere.json().error.message).toContain('10.0.0.1 is a private address');
    expect(seen.length).toBe(before);
    const huge = await http('coder', { url: `${siteUrl}/huge` });
    expect(huge.json()).toMatchObject({ status: 200, truncated: true });
    expect(huge.json().body).toHaveLength(1024 * 1024);
  });
});
