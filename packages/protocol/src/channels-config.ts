import { z } from 'zod';
import { secretRef } from './config-fields.js';

/**
 * Chat channels in mesh.yaml (docs/channels.md): Telegram, Discord and Slack beside each other,
 * each paired to one owner, each delivering exactly once as the person sees it.
 */

/** What every channel shares: who answers, how a busy agent meets a new message, mirroring. */
const deliveryFields = {
  enabled: z.boolean().default(false),
  default_agent: z.string().optional(),
  /**
   * A message from the same person while their agent is busy: `steer` hands it to the running turn
   * (seed 000: people correct themselves mid-answer), `queue` answers it after the turn ends.
   */
  when_busy: z.enum(['steer', 'queue']).default('steer'),
  /** Also send this channel's agent replies and operator notices to the owner on every other paired channel. */
  mirror: z.boolean().default(false),
};

/** Platform ids (Discord snowflakes, Slack `C…`/`D…` ids) are short ASCII tokens. */
const platformId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'use the platform id (letters, digits, _ and -), not a name');

export const telegramChannelSchema = z
  .object({
    ...deliveryFields,
    token: secretRef.optional(),
    /** Answer in groups (only when mentioned or replied to). */
    allow_groups: z.boolean().default(false),
    /** The Bot API server: Telegram's when absent; a local Bot API server (or a test's fake) otherwise. */
    api_root: z.url({ protocol: /^https?$/ }).optional(),
    /** Receive updates by webhook instead of long polling. */
    webhook: z
      .object({
        /** The public https URL Telegram posts to (a reverse proxy forwards it to `port`). */
        url: z.url({ protocol: /^https?$/ }),
        /** Telegram echoes it in every post; posts without it are refused. */
        secret_token: secretRef,
        host: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(1).max(65_535),
      })
      .strict()
      .optional(),
  })
  .strict();

export const discordChannelSchema = z
  .object({
    ...deliveryFields,
    /** The bot token (a vault or env reference). */
    token: secretRef.optional(),
    /**
     * Server channels the bot answers in (when mentioned). Empty: direct messages only, so a bot
     * invited to a busy server does not answer everyone who mentions it.
     */
    allowed_channels: z.array(platformId).default([]),
    /** REST API base (Discord's when absent; a test's fake otherwise), e.g. http://127.0.0.1:PORT/api. */
    api_root: z.url({ protocol: /^https?$/ }).optional(),
    /** Gateway WebSocket URL (Discord's when absent; a test's fake otherwise). */
    gateway_url: z.url({ protocol: /^wss?$/ }).optional(),
  })
  .strict();

export const slackChannelSchema = z
  .object({
    ...deliveryFields,
    /** The bot token (`xoxb-…`) for the Web API. */
    bot_token: secretRef.optional(),
    /** The app-level token (`xapp-…`) that opens the Socket Mode connection. */
    app_token: secretRef.optional(),
    /** Channels the bot answers in (when mentioned). Empty: direct messages only. */
    allowed_channels: z.array(platformId).default([]),
    /** Web API base (Slack's when absent; a test's fake otherwise), e.g. http://127.0.0.1:PORT/api/. */
    api_root: z.url({ protocol: /^https?$/ }).optional(),
  })
  .strict();

export const channelsSchema = z
  .object({
    telegram: telegramChannelSchema.optional(),
    discord: discordChannelSchema.optional(),
    slack: slackChannelSchema.optional(),
  })
  .strict();

export type TelegramChannelConfig = z.infer<typeof telegramChannelSchema>;
export type DiscordChannelConfig = z.infer<typeof discordChannelSchema>;
export type SlackChannelConfig = z.infer<typeof slackChannelSchema>;
/** The channels' names, as in `channels:` and the delivery tables. */
export type ChannelName = keyof z.infer<typeof channelsSchema>;
