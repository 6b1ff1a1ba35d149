import { type Socket, connect as tcpConnect } from 'node:net';
import { findFreePort } from '@openlegion/infra/http';
import type { MeshConfigInput } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { TokenRegistry } from '../auth/index.js';
import { credentialsFeature } from '../credentials/index.js';
import type { PreparedMesh } from '../fleet/index.js';
import { llmFeature } from '../llm/llm-feature.js';
import { EGRESS, type EgressFeatureOptions, egressFeature } from './egress-feature.js';
import type { FirewallCommand } from './network-lockdown.js';

/** The host listens on loopback only; the "agents" here are this test. */
const PREPARED: PreparedMesh = {
  hostBindAddresses: ['127.0.0.1'],
  agentMeshUrl: (port) => `http://127.0.0.1:${port}`,
};
const CONFIG: MeshConfigInput = {
  llm: { providers: { openai: { api_key: 'env:OPENAI_API_KEY' } } },
  agents: { a: { permissions: { egress: ['allowed.test'] } } },
};
const failingFirewall: FirewallCommand = async () => {
  throw new Error('iptables: Permission denied (you must be root)');
};

describe('egress feature', () => {
  let host: FeatureTestHost | undefined;
  afterEach(async () => {
    await host?.stop();
    host = undefined;
  });

  const start = async (options: EgressFeatureOptions = {}, config: MeshConfigInput = CONFIG) => {
    const tokens = new TokenRegistry();
    const egressPort = await findFreePort('127.0.0.1');
    // No packet leaves this test: nothing is allowed to be dialled.
    const feature = egressFeature({
      dial: (address, port) => {
        throw new Error(`dialer called for ${address}:${port}`);
      },
      ...options,
    });
    host = await startFeatureTestHost(
      [llmFeature(), feature, credentialsFeature()],
      { ...config, mesh: { egress_port: egressPort } },
      { tokens },
    );
    return { egress: host.service(EGRESS), tokens, host };
  };

  /** The status line the proxy answers a CONNECT to allowed.test:22 with these credentials. */
  const connectStatus = (proxyUrl: string, agent: string, token: string) =>
    new Promise<string>((done, fail) => {
      const proxy = new URL(proxyUrl);
      const socket: Socket = tcpConnect({ host: proxy.hostname, port: Number(proxy.port) }, () => {
        const auth = Buffer.from(`${agent}:${token}`).toString('base64');
        socket.write(`CONNECT allowed.test:22 HTTP/1.1\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => done(text.split('\r\n')[0] ?? ''));
      socket.on('error', fail);
    });

  it("puts the agent's proxy token, not its mesh token, in HTTP_PROXY; the proxy takes only that one", async () => {
    const { egress, tokens } = await start();
    await egress.open(PREPARED, undefined);
    const meshToken = tokens.mint('a');
    const env = egress.agentEnv('a');
    const proxyUrl = env.HTTP_PROXY ?? '';
    expect(env.HTTPS_PROXY).toBe(proxyUrl);
    expect(proxyUrl).not.toContain(meshToken);
    const proxy = new URL(proxyUrl);
    expect(proxy.username).toBe('a');
    expect(proxy.password).toBe(tokens.proxyTokenFor('a'));
    expect(await connectStatus(proxyUrl, 'a', proxy.password)).toBe('HTTP/1.1 403 Forbidden');
    expect(await connectStatus(proxyUrl, 'a', meshToken)).toBe('HTTP/1.1 407 Proxy Authentication Required');
    expect(egress.networkLock()).toBe('none');
  });

  it('refuses the proxy token on the mesh and LLM routes', async () => {
    const { egress, tokens, host } = await start();
    await egress.open(PREPARED, undefined);
    tokens.mint('a');
    const bearer = { authorization: `Bearer ${tokens.proxyTokenFor('a')}` };
    for (const url of ['/mesh/vault', '/v1/models']) {
      const answer = await host.app.inject({ url, headers: bearer });
      expect(answer.statusCode, url).toBe(401);
      expect(answer.json().error, url).toMatchObject({
        code: 'AUTH_INVALID',
        message: 'the bearer token is not valid for this host',
      });
      expect((await host.app.inject({ url, headers: host.agentAuth('a') })).statusCode, url).toBe(200);
    }
  });

  it('refuses to start when the lockdown cannot be installed, naming both ways out', async () => {
    const { egress } = await start({ firewall: failingFirewall });
    const opened = egress.open(PREPARED, 'ol-0123456789ab');
    await expect(opened).rejects.toMatchObject({
      code: 'MESH_NETWORK_UNLOCKED',
      message:
        'the network lockdown could not be installed on ol-0123456789ab (iptables: Permission denied (you must be root)): without it agents reach every service this machine binds on 0.0.0.0. Run the host as root with iptables, or start anyway with `openlegion start --allow-unlocked-network` or `runtime.allow_unlocked_network: true` in mesh.yaml',
    });
    expect(egress.networkLock()).toBeUndefined();
  });

  it('starts unlocked, with a warning, when the operator allows it by flag or by mesh.yaml', async () => {
    const byFlag = await start({ firewall: failingFirewall, allowUnlockedNetwork: true });
    await byFlag.egress.open(PREPARED, 'ol-0123456789ab');
    expect(byFlag.egress.networkLock()).toBe('unlocked');
    expect(byFlag.host.warnings).toEqual([expect.stringContaining('(allowed by --allow-unlocked-network)')]);
    await byFlag.host.stop();
    host = undefined;
    const byConfig = await start(
      { firewall: failingFirewall },
      { ...CONFIG, runtime: { allow_unlocked_network: true } },
    );
    await byConfig.egress.open(PREPARED, 'ol-0123456789ab');
    expect(byConfig.egress.networkLock()).toBe('unlocked');
    expect(byConfig.host.warnings).toEqual([
      expect.stringContaining('(allowed by runtime.allow_unlocked_network)'),
    ]);
  });

  it('reports the network locked when the firewall takes the rules', async () => {
    const commands: string[] = [];
    const { egress } = await start({
      firewall: async (binary, args) => {
        commands.push(`${binary} ${args.join(' ')}`);
        if (args[0] === '-C') throw new Error('no such rule');
      },
    });
    await egress.open(PREPARED, 'ol-0123456789ab');
    expect(egress.networkLock()).toBe('locked');
    expect(commands).toContain('iptables -A OL-IN-ol-0123456789ab -j DROP');
  });

  it('answers /mesh/http for a port outside egress_ports with 403 naming the field', async () => {
    const { egress, host } = await start();
    await egress.open(PREPARED, undefined);
    const answer = await host.app.inject({
      method: 'POST',
      url: '/mesh/http',
      headers: host.agentAuth('a'),
      payload: { url: 'http://allowed.test:8080/' },
    });
    expect(answer.statusCode).toBe(403);
    expect(answer.json().error).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message:
        'egress refused: port 8080 is not in agents.a.permissions.egress_ports (allowed: 80, 443); add it there in mesh.yaml to allow it',
    });
    const zero = await host.app.inject({
      method: 'POST',
      url: '/mesh/http',
      headers: host.agentAuth('a'),
      payload: { url: 'http://allowed.test:0/' },
    });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().error.code).toBe('REQUEST_INVALID');
  });

  it('answers http_request (/mesh/http) to a host off the list with the line of mesh.yaml to add', async () => {
    const { egress, host } = await start();
    await egress.open(PREPARED, undefined);
    const answer = await host.app.inject({
      method: 'POST',
      url: '/mesh/http',
      headers: host.agentAuth('a'),
      payload: { url: 'https://example.com/api' },
    });
    expect(answer.statusCode).toBe(403);
    expect(answer.json().error).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message:
        "egress refused: example.com is not in agents.a.permissions.egress; to allow it add '@web' (any public host) or 'example.com' (this host only) to that list in mesh.yaml",
    });
  });
});
