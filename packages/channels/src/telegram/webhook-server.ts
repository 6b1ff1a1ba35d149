import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenLegionError } from '@openlegion/protocol';
import type { Logger } from 'pino';
import { z } from 'zod';

/** Receive updates by webhook instead of long polling. */
export const telegramWebhookOptionsSchema = z.object({
  /** The public URL Telegram posts to (Telegram requires https; a reverse proxy forwards to `listen`). */
  url: z.url({ protocol: /^https?$/ }),
  /** Telegram sends it back in `X-Telegram-Bot-Api-Secret-Token`; anything else is refused. */
  secretToken: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, '16 to 256 characters of A-Z, a-z, 0-9, _ and -'),
  /** Where the channel listens; loopback by default. */
  listen: z.object({ host: z.string().default('127.0.0.1'), port: z.number().int().min(0).max(65_535) }),
});
export type TelegramWebhookOptions = z.input<typeof telegramWebhookOptionsSchema>;

const MAX_UPDATE_BYTES = 1_000_000;
const SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** A running webhook receiver. */
export interface WebhookServer {
  /** Where it listens, e.g. `http://127.0.0.1:8443`. */
  address: string;
  close(): Promise<void>;
}

/** Check webhook options; CHAN_WEBHOOK_INVALID naming the field otherwise. */
export function parseWebhookOptions(
  options: TelegramWebhookOptions,
): z.infer<typeof telegramWebhookOptionsSchema> {
  const parsed = telegramWebhookOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new OpenLegionError(
    'CHAN_WEBHOOK_INVALID',
    `telegram webhook ${issue?.path.join('.') || 'options'}: ${issue?.message ?? 'invalid'}`,
    { cause: parsed.error },
  );
}

function secretMatches(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Listen for Telegram's webhook POSTs on the URL's path. A request without the secret token gets
 * 401 and is dropped; a valid update is handed to `dispatch` and answered 200 once taken in.
 */
export async function startWebhookServer(
  options: z.infer<typeof telegramWebhookOptionsSchema>,
  dispatch: (raw: unknown) => Promise<void>,
  logger: Logger,
): Promise<WebhookServer> {
  const path = new URL(options.url).pathname;
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://webhook').pathname !== path) {
      return answer(res, 404, { ok: false });
    }
    if (!secretMatches(req.headers[SECRET_HEADER], options.secretToken)) {
      logger.warn(
        { remote: req.socket.remoteAddress },
        'telegram webhook call without the secret token refused',
      );
      req.resume();
      return answer(res, 401, { ok: false });
    }
    let size = 0;
    const parts: Buffer[] = [];
    for await (const part of req) {
      size += (part as Buffer).length;
      if (size > MAX_UPDATE_BYTES) return answer(res, 413, { ok: false });
      parts.push(part as Buffer);
    }
    let update: unknown;
    try {
      update = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      return answer(res, 400, { ok: false });
    }
    await dispatch(update);
    answer(res, 200, { ok: true });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      logger.error({ err: error }, 'telegram webhook request failed');
      if (!res.headersSent) answer(res, 500, { ok: false });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    address: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
