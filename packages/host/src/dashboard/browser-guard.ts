import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';

/** Methods that change nothing: they need no CSRF token, and browsers may send them without Origin. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/**
 * The `Host` values (name:port) the dashboard answers: the loopback names with the mesh port, and
 * the names mesh.yaml adds (`dashboard.allowed_hosts`, given the mesh port when they name none).
 * Anything else is a DNS-rebinding page or a mistake, refused before any route runs.
 */
export function allowedHosts(port: number, extra: readonly string[]): ReadonlySet<string> {
  const names = ['localhost', '127.0.0.1', '[::1]', ...extra];
  return new Set(names.map((name) => (/:\d+$/.test(name) ? name : `${name}:${port}`).toLowerCase()));
}

/**
 * Refuse a browser's request unless it came in on the loopback listener (agents in containers reach
 * the host on the mesh gateway's address), names an allowed Host, and, when it sends an Origin (a
 * change must), names one of those hosts there too.
 */
export function checkBrowserRequest(request: FastifyRequest, hosts: ReadonlySet<string>): void {
  if (!isLoopback(request.socket.localAddress)) {
    throw new OpenLegionError(
      'DASHBOARD_NOT_LOOPBACK',
      "the dashboard is served only on the host's loopback address (open http://127.0.0.1:<mesh.port>/ui on the host's machine)",
    );
  }
  const host = request.headers.host?.toLowerCase();
  if (host === undefined || !hosts.has(host)) {
    throw new OpenLegionError(
      'DASHBOARD_ORIGIN_REFUSED',
      `the dashboard does not answer for Host "${host ?? ''}"; open it as http://127.0.0.1:<mesh.port>/ui, or add the name to dashboard.allowed_hosts in mesh.yaml`,
      { details: { host: host ?? null } },
    );
  }
  const origin = request.headers.origin;
  if (origin === undefined) {
    if (SAFE_METHODS.has(request.method)) return;
    throw new OpenLegionError('DASHBOARD_ORIGIN_REFUSED', 'a change from a browser must say its Origin');
  }
  if (!hosts.has(originHost(origin))) {
    throw new OpenLegionError(
      'DASHBOARD_ORIGIN_REFUSED',
      `a page from ${origin} may not use this dashboard (cross-site request refused)`,
      { details: { origin } },
    );
  }
}

/** `http://127.0.0.1:8700` → `127.0.0.1:8700`; an opaque or malformed origin gives '' (refused). */
function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
    const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
    return `${url.hostname}:${port}`.toLowerCase();
  } catch {
    return '';
  }
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined || !ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return parsed.range() === 'loopback';
}

/** The value of one cookie of a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
