import type { FakeTelegramUpdate } from './bot-api-types.js';

/** Where Telegram posts updates once `setWebhook` was called. */
export interface FakeWebhook {
  url: string;
  secret_token: string | undefined;
}

/** One POST of an update to the webhook, and how it went. */
export interface FakeWebhookDelivery {
  update_id: number;
  /** The HTTP status the bot answered; 0 when the POST failed. */
  status: number;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * POST an update to the webhook as Telegram does (JSON, with `X-Telegram-Bot-Api-Secret-Token`
 * when a secret was set). Only loopback URLs are ever called: tests never send traffic elsewhere.
 */
export async function deliverToWebhook(
  webhook: FakeWebhook,
  update: FakeTelegramUpdate,
): Promise<FakeWebhookDelivery> {
  const target = new URL(webhook.url);
  if (!LOOPBACK_HOSTS.has(target.hostname)) {
    throw new Error(`fake Telegram delivers webhooks to loopback only, not ${target.hostname}`);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (webhook.secret_token) headers['x-telegram-bot-api-secret-token'] = webhook.secret_token;
  try {
    const response = await fetch(target, { method: 'POST', headers, body: JSON.stringify(update) });
    await response.arrayBuffer();
    return { update_id: update.update_id, status: response.status };
  } catch {
    return { update_id: update.update_id, status: 0 };
  }
}
