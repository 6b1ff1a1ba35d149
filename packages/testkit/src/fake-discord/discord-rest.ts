import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeDiscordFault } from './discord-types.js';

/** A REST route the fake Discord answers (under `/api` or `/api/v10`). */
export interface Route {
  method: string;
  pattern: RegExp;
  /** The route as `fail` names it. */
  name: string;
}

export const ROUTES: Route[] = [
  { method: 'GET', pattern: /^\/gateway\/bot$/, name: 'GET /gateway/bot' },
  { method: 'GET', pattern: /^\/users\/@me$/, name: 'GET /users/@me' },
  { method: 'POST', pattern: /^\/users\/@me\/channels$/, name: 'POST /users/@me/channels' },
  { method: 'POST', pattern: /^\/channels\/(\d+)\/messages$/, name: 'POST /channels/:id/messages' },
  {
    method: 'PATCH',
    pattern: /^\/channels\/(\d+)\/messages\/(\d+)$/,
    name: 'PATCH /channels/:id/messages/:id',
  },
  {
    method: 'POST',
    pattern: /^\/interactions\/(\d+)\/([^/]+)\/callback$/,
    name: 'POST /interactions/:id/:token/callback',
  },
  { method: 'PUT', pattern: /^\/applications\/(\d+)\/commands$/, name: 'PUT /applications/:id/commands' },
];

/** Discord's 429: `Retry-After` in seconds and the body discord.js reads (`retry_after`, `global`). */
export function writeRateLimited(
  res: ServerResponse,
  fault: Extract<FakeDiscordFault, { kind: 'rate-limit' }>,
): void {
  res.writeHead(429, {
    'content-type': 'application/json',
    'retry-after': String(Math.ceil(fault.retryAfterSeconds)),
    'x-ratelimit-scope': fault.global ? 'global' : 'user',
    ...(fault.global ? { 'x-ratelimit-global': 'true' } : {}),
  });
  res.end(
    JSON.stringify({
      message: 'You are being rate limited.',
      retry_after: fault.retryAfterSeconds,
      global: fault.global ?? false,
    }),
  );
}

export function json(res: ServerResponse, status: number, payload: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
