import { request } from 'node:http';
import { EGRESS_REASON_HEADER } from '@openlegion/protocol';
import type { ProxySettings } from './launch-options.js';

/** A refusal is answered at once; a proxy that takes longer is not asked again. */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * Why the egress proxy refused the tunnel to `url`, asked again with one CONNECT of our own:
 * Chromium reports a refused CONNECT only as `net::ERR_TUNNEL_CONNECTION_FAILED` and keeps the
 * proxy's answer to itself. The probe goes to the proxy only (never to `url`), and its socket is
 * closed at once whatever the answer. Undefined when the proxy gives no reason (or now allows it).
 */
export async function probeEgressRefusal(proxy: ProxySettings, url: string): Promise<string | undefined> {
  let target: URL;
  let server: URL;
  try {
    target = new URL(url);
    server = new URL(proxy.server);
  } catch {
    return undefined;
  }
  if (server.protocol !== 'http:') return undefined;
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const headers: Record<string, string> = { host: `${target.hostname}:${port}` };
  if (proxy.username !== undefined)
    headers['proxy-authorization'] =
      `Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ''}`).toString('base64')}`;
  return new Promise((resolve) => {
    const probe = request({
      host: server.hostname.replace(/^\[|\]$/g, ''),
      port: Number(server.port || 80),
      method: 'CONNECT',
      path: `${target.hostname}:${port}`,
      headers,
      timeout: PROBE_TIMEOUT_MS,
    });
    probe.on('connect', (answer, socket) => {
      socket.destroy();
      const reason = answer.headers[EGRESS_REASON_HEADER];
      resolve(answer.statusCode === 403 && typeof reason === 'string' ? reason : undefined);
    });
    probe.on('timeout', () => probe.destroy());
    probe.on('error', () => resolve(undefined));
    probe.on('close', () => resolve(undefined));
    probe.end();
  });
}
