import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { WebSocketServer } from 'ws';
import { closeOnce, listenOnLoopback } from '../loopback-server.js';
import {
  buttonInteraction,
  DISCORD_MESSAGE_LIMIT,
  invalidContent,
  messageObject,
  slashCommandInteraction,
  userObject,
} from './discord-payloads.js';
import { json, ROUTES, readBody, writeRateLimited } from './discord-rest.js';
import type {
  FakeDiscordBotMessage,
  FakeDiscordCall,
  FakeDiscordFault,
  FakeDiscordUser,
  FakeGatewayEvent,
} from './discord-types.js';
import { FakeGateway, PRIVILEGED_INTENTS } from './fake-gateway.js';

/** Options of {@link startFakeDiscord}. */
export interface FakeDiscordOptions {
  /** The bot token the fake accepts; others get 401 (REST) or close 4004 (gateway). */
  token?: string;
  botUsername?: string;
  /** HELLO's heartbeat_interval. Default 41,250 ms as Discord; tests of zombie connections go lower. */
  heartbeatIntervalMs?: number;
  /** Whether the application may use the MESSAGE_CONTENT intent (portal switch). Default true. */
  messageContentIntent?: boolean;
  /** Channels the bot may not post in: POST and PATCH there answer 403 Missing Permissions. */
  forbiddenChannels?: string[];
  port?: number;
}

/** Where a person writes: a DM, or a server channel. */
export interface FakeDiscordPlace {
  channelId: string;
  guildId?: string;
}

/** A running fake Discord (REST API and Gateway) on loopback. */
export interface FakeDiscord {
  /** For discord.js `rest.api`: `http://127.0.0.1:<port>/api`. */
  apiRoot: string;
  /** The Gateway URL (GET /gateway/bot gives it too). */
  gatewayUrl: string;
  token: string;
  bot: FakeDiscordUser;
  applicationId: string;
  gateway: FakeGateway;
  /** Every REST call received, in arrival order. */
  calls: FakeDiscordCall[];
  /** Every message the bot posted, with its edits. */
  messages: FakeDiscordBotMessage[];
  /** Interaction callbacks the bot sent (type 4 message, 6 deferred update, 7 update message, ...). */
  interactionCallbacks: { interactionId: string; type: number; data: unknown }[];
  /** How many sends repeated a nonce (and got the message made the first time). */
  readonly nonceRepeats: number;
  /** Gateway frames in and out. */
  gatewayEvents: FakeGatewayEvent[];
  /** A person writes to the bot in a DM; returns the message's id (the dispatch carries it). */
  sendDm(from: FakeDiscordUser, text: string): string;
  /** A person writes in a server channel; `mention` puts `<@bot>` in front and in `mentions`. */
  sendInChannel(
    place: Required<FakeDiscordPlace>,
    from: FakeDiscordUser,
    text: string,
    options?: { mention?: boolean },
  ): string;
  /** A person presses a button (custom_id) under one of the bot's messages: INTERACTION_CREATE. */
  pressButton(from: FakeDiscordUser, message: FakeDiscordBotMessage, customId: string): string;
  /** A person runs a slash command (`/use` with `name: writer`): INTERACTION_CREATE type 2. */
  sendSlashCommand(
    from: FakeDiscordUser,
    place: FakeDiscordPlace,
    name: string,
    options?: Record<string, string>,
  ): string;
  /** Every command list the bot registered (PUT /applications/ID/commands), in order. */
  registeredCommands: unknown[][];
  /** Dispatch the MESSAGE_CREATE of `messageId` again with a new sequence (Discord replaying it). */
  replay(messageId: string): void;
  /** The DM channel of a person (created on first use, as POST /users/@me/channels does). */
  dmChannelOf(userId: string): string;
  /** The bot's messages in one channel. */
  messagesIn(channelId: string): FakeDiscordBotMessage[];
  /** Answer the next `times` calls matching `route` (`POST /channels/:id/messages`, or `*`) with a fault. */
  fail(route: string, fault: FakeDiscordFault, times?: number): void;
  waitFor<T>(probe: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/**
 * Start a fake Discord: the REST API under `/api/v10` (GET /gateway/bot, POST and PATCH channel
 * messages with Discord's 2,000-character limit, DM channels, interaction callbacks, command
 * registration; 401 for a bad token, 403 for a forbidden channel, injected 429s with retry_after)
 * and the Gateway over WebSocket (see {@link FakeGateway}). Tests play the people who write.
 *
 * @example
 * const discord = await startFakeDiscord();
 * const client = new Client({ intents, rest: { api: discord.apiRoot } });
 * await client.login(discord.token);
 * discord.sendDm({ id: '42', username: 'ada' }, '/pair ABCD2345');
 */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = options.token ?? 'ZmFrZS1ib3Q.fake.discord-token';
  let snowflake = 1_200_000_000_000_000_000n;
  const newId = () => String(++snowflake);
  const bot: FakeDiscordUser = { id: newId(), username: options.botUsername ?? 'openlegion_test', bot: true };
  const applicationId = bot.id;
  const forbidden = new Set(options.forbiddenChannels ?? []);
  const calls: FakeDiscordCall[] = [];
  const messages: FakeDiscordBotMessage[] = [];
  const interactionCallbacks: FakeDiscord['interactionCallbacks'] = [];
  const dmChannels = new Map<string, string>();
  const byNonce = new Map<string, FakeDiscordBotMessage>();
  const registeredCommands: unknown[][] = [];
  let nonceRepeats = 0;
  const sentByPeople = new Map<string, unknown>();
  const faults: { route: string; fault: FakeDiscordFault; left: number }[] = [];
  const lifetime = new AbortController();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => json(res, 500, { message: String(error), code: 0 }));
  });
  const { baseUrl, port } = await listenOnLoopback(server, options.port);
  const wsBase = `ws://127.0.0.1:${port}`;
  const gateway = new FakeGateway({
    token,
    bot,
    applicationId,
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
    allowedPrivilegedIntents: options.messageContentIntent === false ? 0 : PRIVILEGED_INTENTS.MESSAGE_CONTENT,
    resumeUrl: `${wsBase}/resume`,
    newId,
  });
  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (path !== '/gateway' && path !== '/resume') return socket.destroy();
    sockets.handleUpgrade(req, socket, head, (ws) => gateway.accept(ws));
  });

  const dmChannelOf = (userId: string): string => {
    let channel = dmChannels.get(userId);
    if (!channel) {
      channel = newId();
      dmChannels.set(userId, channel);
    }
    return channel;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake-discord');
    const route = url.pathname.replace(/^\/api(\/v\d+)?/, '');
    const raw = await readBody(req);
    const body: unknown = raw ? JSON.parse(raw) : undefined;
    const call: FakeDiscordCall = {
      method: req.method ?? 'GET',
      route,
      authorized: req.headers.authorization === `Bot ${token}`,
      body,
      status: 0,
      at: Date.now(),
    };
    calls.push(call);
    const answer = (status: number, payload?: unknown) => {
      call.status = status;
      if (payload === undefined) {
        res.writeHead(status).end();
        return;
      }
      json(res, status, payload);
    };
    const matched = ROUTES.map((candidate) => ({ candidate, groups: candidate.pattern.exec(route) })).find(
      ({ candidate, groups }) => candidate.method === call.method && groups,
    );
    if (!matched?.groups) return answer(404, { message: '404: Not Found', code: 0 });
    // Interaction callbacks are authorised by the interaction's token in the path, not the bot's.
    if (!call.authorized && !matched.candidate.name.startsWith('POST /interactions'))
      return answer(401, { message: '401: Unauthorized', code: 0 });
    const fault = takeFault(matched.candidate.name);
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === 'rate-limit') {
      call.status = 429;
      return writeRateLimited(res, fault);
    }
    if (fault?.kind === 'forbidden') return answer(403, { message: 'Missing Permissions', code: 50013 });
    if (fault?.kind === 'server-error')
      return answer(fault.status ?? 500, { message: 'Internal Server Error', code: 0 });
    const [, first, second] = matched.groups;
    const fields = (body ?? {}) as {
      content?: string;
      components?: unknown[];
      message_reference?: { message_id?: string };
      recipient_id?: string;
      nonce?: string | number;
      enforce_nonce?: boolean;
      type?: number;
      data?: { content?: string; components?: unknown[] };
    };
    switch (matched.candidate.name) {
      case 'GET /gateway/bot':
        return answer(200, {
          url: `${wsBase}/gateway`,
          shards: 1,
          session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
        });
      case 'GET /users/@me':
        return answer(200, userObject(bot));
      case 'POST /users/@me/channels': {
        const recipient = String(fields.recipient_id ?? '');
        return answer(200, { id: dmChannelOf(recipient), type: 1, recipients: [{ id: recipient }] });
      }
      case 'POST /channels/:id/messages': {
        const channelId = String(first);
        if (forbidden.has(channelId)) return answer(403, { message: 'Missing Permissions', code: 50013 });
        // Discord's idempotent send: a nonce seen before (with enforce_nonce) returns the message it made.
        const repeated =
          fields.enforce_nonce && fields.nonce !== undefined
            ? byNonce.get(`${channelId}:${fields.nonce}`)
            : undefined;
        if (repeated) {
          nonceRepeats += 1;
          return answer(
            200,
            messageObject({
              id: repeated.id,
              channelId,
              author: bot,
              content: repeated.content,
              components: repeated.components,
            }),
          );
        }
        const content = fields.content ?? '';
        if (content.length > DISCORD_MESSAGE_LIMIT || (content === '' && !fields.components?.length))
          return answer(400, invalidContent(content));
        const message: FakeDiscordBotMessage = {
          id: newId(),
          channel_id: channelId,
          content,
          history: [],
          components: fields.components ?? [],
          ...(fields.message_reference?.message_id ? { reply_to: fields.message_reference.message_id } : {}),
          via_interaction: false,
        };
        messages.push(message);
        if (fields.enforce_nonce && fields.nonce !== undefined)
          byNonce.set(`${channelId}:${fields.nonce}`, message);
        return answer(
          200,
          messageObject({ id: message.id, channelId, author: bot, content, components: message.components }),
        );
      }
      case 'PATCH /channels/:id/messages/:id': {
        const message = messages.find(
          (candidate) => candidate.id === second && candidate.channel_id === first,
        );
        if (!message) return answer(404, { message: 'Unknown Message', code: 10008 });
        if (forbidden.has(message.channel_id))
          return answer(403, { message: 'Missing Permissions', code: 50013 });
        if (fields.content !== undefined) {
          if (fields.content.length > DISCORD_MESSAGE_LIMIT)
            return answer(400, invalidContent(fields.content));
          if (fields.content !== message.content) {
            message.history.push(message.content);
            message.content = fields.content;
          }
        }
        if (fields.components) message.components = fields.components;
        return answer(
          200,
          messageObject({
            id: message.id,
            channelId: message.channel_id,
            author: bot,
            content: message.content,
            components: message.components,
          }),
        );
      }
      case 'POST /interactions/:id/:token/callback': {
        const interactionId = String(first);
        interactionCallbacks.push({ interactionId, type: Number(fields.type), data: fields.data });
        const pressed = pressedMessages.get(interactionId);
        // 7 UPDATE_MESSAGE edits the message the button is on.
        if (fields.type === 7 && pressed && fields.data) {
          if (fields.data.content !== undefined && fields.data.content !== pressed.content) {
            pressed.history.push(pressed.content);
            pressed.content = fields.data.content;
          }
          if (fields.data.components) pressed.components = fields.data.components;
        }
        return answer(204);
      }
      case 'PUT /applications/:id/commands':
        registeredCommands.push(Array.isArray(body) ? body : []);
        return answer(200, Array.isArray(body) ? body.map((command) => ({ ...command, id: newId() })) : []);
    }
    return answer(404, { message: '404: Not Found', code: 0 });
  }

  const pressedMessages = new Map<string, FakeDiscordBotMessage>();
  const takeFault = (name: string): FakeDiscordFault | undefined => {
    const index = faults.findIndex((entry) => entry.route === name || entry.route === '*');
    const entry = faults[index];
    if (!entry) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) faults.splice(index, 1);
    return entry.fault;
  };
  const close = closeOnce(server, lifetime);

  return {
    apiRoot: `${baseUrl}/api`,
    gatewayUrl: `${wsBase}/gateway`,
    token,
    bot,
    applicationId,
    gateway,
    calls,
    messages,
    interactionCallbacks,
    gatewayEvents: gateway.events,
    get nonceRepeats() {
      return nonceRepeats;
    },
    sendDm(from, text) {
      const id = newId();
      const message = messageObject({ id, channelId: dmChannelOf(from.id), author: from, content: text });
      sentByPeople.set(id, message);
      gateway.dispatch('MESSAGE_CREATE', message);
      return id;
    },
    sendInChannel(place, from, text, { mention = false } = {}) {
      const id = newId();
      const message = messageObject({
        id,
        channelId: place.channelId,
        guildId: place.guildId,
        author: from,
        content: mention ? `<@${bot.id}> ${text}` : text,
        mentions: mention ? [bot] : [],
      });
      sentByPeople.set(id, { ...message, member: { roles: [], joined_at: message.timestamp } });
      gateway.dispatch('MESSAGE_CREATE', sentByPeople.get(id));
      return id;
    },
    pressButton(from, message, customId) {
      const id = newId();
      pressedMessages.set(id, message);
      const inDm = [...dmChannels.values()].includes(message.channel_id);
      gateway.dispatch(
        'INTERACTION_CREATE',
        buttonInteraction({ id, applicationId, bot, from, message, customId, inDm }),
      );
      return id;
    },
    sendSlashCommand(from, place, name, options = {}) {
      const id = newId();
      gateway.dispatch(
        'INTERACTION_CREATE',
        slashCommandInteraction({ id, applicationId, from, place, name, options, commandId: newId() }),
      );
      return id;
    },
    registeredCommands,
    replay(messageId) {
      const message = sentByPeople.get(messageId);
      if (!message) throw new Error(`no message ${messageId} was sent by a person`);
      gateway.dispatch('MESSAGE_CREATE', message);
    },
    dmChannelOf,
    messagesIn: (channelId) => messages.filter((message) => message.channel_id === channelId),
    fail(route, fault, times = 1) {
      faults.push({ route, fault, left: times });
    },
    async waitFor(probe, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = probe();
        if (value !== undefined && value !== false) return value;
        if (Date.now() > deadline) throw new Error(`fake Discord: condition not met within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      gateway.close();
      sockets.close();
      await close();
    },
  };
}
