import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';
import { closeOnce, listenOnLoopback } from '../loopback-server.js';
import { blocksProblem, FakeSlackMessages, SLACK_TEXT_LIMIT } from './fake-slack-messages.js';
import type {
  FakeSlack,
  FakeSlackCall,
  FakeSlackEnvelope,
  FakeSlackEnvelopeFilter,
  FakeSlackFault,
  FakeSlackOptions,
  FakeSlackUser,
} from './slack-types.js';

type Answer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };

const SCOPES = ['app_mentions:read', 'chat:write', 'im:history', 'im:read', 'im:write', 'users:read'];

async function readParams(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    // The Web API client sends arrays and objects (blocks) as JSON inside the form.
    params[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
  }
  return params;
}

/**
 * Start a fake Slack: the Web API under `/api/<method>` (auth.test, apps.connections.open,
 * chat.postMessage, chat.update, users.info, conversations.open) with Slack's `ok: false` errors and
 * 429 + Retry-After, and the Socket Mode WebSocket apps.connections.open points at (hello, events_api
 * and interactive envelopes that want an ack, disconnect messages, retries with retry_attempt).
 *
 * @example
 * const slack = await startFakeSlack();
 * const app = new App({ token: slack.botToken, appToken: slack.appToken, socketMode: true, clientOptions: { slackApiUrl: slack.url } });
 * slack.sendDm({ id: 'U1' }, 'pair ABCD2345');
 */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const botToken = options.botToken ?? 'xoxb-test-bot-token';
  const appToken = options.appToken ?? 'xapp-test-app-token';
  const botUserId = 'UBOT0001';
  const teamId = 'T0001';
  const memberOf = new Set(options.memberOf ?? []);
  const scopes = (options.scopes ?? SCOPES).join(',');
  const calls: FakeSlackCall[] = [];
  const envelopes: FakeSlackEnvelope[] = [];
  const store = new FakeSlackMessages();
  const faults: { method: string; fault: FakeSlackFault; left: number }[] = [];
  const lifetime = new AbortController();
  const sockets = new WebSocketServer({ noServer: true });
  let socket: WebSocket | undefined;
  let connections = 0;
  let eventSequence = 0;
  const undelivered: FakeSlackEnvelope[] = [];
  let baseUrl = '';
  let envelopeFilter: FakeSlackEnvelopeFilter | undefined;
  let faultPicker: ((method: string) => FakeSlackFault | undefined) | undefined;

  const ok = (body: Record<string, unknown> = {}): Answer => ({ status: 200, body: { ok: true, ...body } });
  const refuse = (error: string, extra: Record<string, unknown> = {}): Answer => ({
    status: 200,
    body: { ok: false, error, ...extra },
  });

  function takeFault(method: string): FakeSlackFault | undefined {
    const picked = faultPicker?.(method);
    if (picked) return picked;
    const at = faults.findIndex((entry) => entry.method === method || entry.method === '*');
    const entry = faults[at];
    if (!entry) return undefined;
    entry.left -= 1;
    if (entry.left <= 0) faults.splice(at, 1);
    return entry.fault;
  }

  function canPost(channel: string): Answer | undefined {
    if (typeof channel !== 'string' || channel === '') return refuse('channel_not_found');
    if (channel.startsWith('D') || channel.startsWith('U')) return undefined;
    if (!channel.startsWith('C') && !channel.startsWith('G')) return refuse('channel_not_found');
    return memberOf.has(channel) ? undefined : refuse('not_in_channel');
  }

  function textProblem(params: Record<string, unknown>): Answer | undefined {
    const text = typeof params.text === 'string' ? params.text : '';
    if (text === '' && params.blocks === undefined) return refuse('no_text');
    if (text.length > SLACK_TEXT_LIMIT) return refuse('msg_too_long');
    const blocks = blocksProblem(params.blocks);
    return blocks ? refuse(blocks) : undefined;
  }

  function call(method: string, token: string | undefined, params: Record<string, unknown>): Answer {
    if (method === 'apps.connections.open') {
      if (token !== appToken) return refuse('invalid_auth');
      return ok({ url: `${baseUrl.replace(/^http/, 'ws')}/link/?ticket=${randomUUID()}&app_id=A0001` });
    }
    if (token !== botToken) return refuse(token ? 'invalid_auth' : 'not_authed');
    switch (method) {
      case 'auth.test':
        return ok({
          url: 'https://openlegion-test.slack.com/',
          team: 'OpenLegion test',
          user: 'openlegion',
          team_id: teamId,
          user_id: botUserId,
          bot_id: 'B0001',
          is_enterprise_install: false,
        });
      case 'chat.postMessage': {
        const channel = String(params.channel ?? '');
        const problem = canPost(channel) ?? textProblem(params);
        if (problem) return problem;
        const thread = typeof params.thread_ts === 'string' ? params.thread_ts : undefined;
        const blocks = Array.isArray(params.blocks) ? params.blocks : undefined;
        const message = store.post(channel, String(params.text ?? ''), blocks, thread);
        return ok({
          channel,
          ts: message.ts,
          message: { type: 'message', text: message.text, ts: message.ts },
        });
      }
      case 'chat.update': {
        const channel = String(params.channel ?? '');
        const problem = canPost(channel) ?? textProblem(params);
        if (problem) return problem;
        const message = store.find(channel, String(params.ts ?? ''));
        if (!message) return refuse('message_not_found');
        const text = String(params.text ?? '');
        if (text !== message.text) {
          message.edits.push(message.text);
          message.text = text;
        }
        if (Array.isArray(params.blocks)) message.blocks = params.blocks;
        else if (params.blocks !== undefined) delete message.blocks;
        return ok({ channel, ts: message.ts, text });
      }
      case 'users.info':
        return ok({ user: { id: params.user, name: `user-${String(params.user)}`, real_name: 'Test User' } });
      case 'conversations.open':
        return ok({ channel: { id: `D${String(params.users ?? '').replace(/^U/, '')}` } });
      default:
        return refuse('unknown_method');
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = new URL(req.url ?? '/', 'http://loopback').pathname.replace(/^\/api\//, '');
    const params = await readParams(req);
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7) : (params.token as string | undefined);
    const { token: _secret, ...visible } = params;
    calls.push({ method, params: visible, at: Date.now() });
    const fault = takeFault(method);
    let answer: Answer;
    if (fault && 'error' in fault) {
      answer = refuse(fault.error, fault.needed ? { needed: fault.needed, provided: scopes } : {});
    } else if (fault && fault.status === 429 && 'retryAfterSeconds' in fault) {
      answer = {
        status: 429,
        body: { ok: false, error: 'ratelimited' },
        headers: { 'retry-after': String(fault.retryAfterSeconds) },
      };
    } else if (fault) {
      answer = { status: fault.status, body: { ok: false, error: 'fatal_error' } };
    } else {
      answer = call(method, token, params);
    }
    res.writeHead(answer.status, {
      'content-type': 'application/json',
      ...(token === botToken ? { 'x-oauth-scopes': scopes } : {}),
      ...answer.headers,
    });
    res.end(JSON.stringify(answer.body));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error: 'fatal_error', detail: String(error) }));
    });
  });

  server.on('upgrade', (req, stream, head) => {
    if (!(req.url ?? '').startsWith('/link/')) {
      stream.destroy();
      return;
    }
    sockets.handleUpgrade(req, stream, head, (ws) => {
      socket?.terminate();
      socket = ws;
      connections += 1;
      ws.on('message', (data) => {
        const ack = JSON.parse(String(data)) as { envelope_id?: string };
        for (const envelope of envelopes) if (envelope.envelope_id === ack.envelope_id) envelope.acked = true;
      });
      ws.on('close', () => {
        if (socket === ws) socket = undefined;
      });
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: 1,
          debug_info: { host: 'fake-slack', approximate_connection_time: 18060 },
          connection_info: { app_id: 'A0001' },
        }),
      );
      for (const envelope of undelivered.splice(0)) write(envelope);
    });
  });

  function write(envelope: FakeSlackEnvelope): void {
    if (!socket || socket.readyState !== socket.OPEN) {
      // Slack keeps what it could not deliver and sends it on the next connection.
      undelivered.push(envelope);
      return;
    }
    const { acked: _acked, ...wire } = envelope;
    socket.send(JSON.stringify({ ...wire, accepts_response_payload: false }));
  }

  function deliver(
    type: FakeSlackEnvelope['type'],
    payload: Record<string, unknown>,
    retry?: { attempt: number; reason: string },
  ): FakeSlackEnvelope {
    const envelope: FakeSlackEnvelope = {
      envelope_id: randomUUID(),
      type,
      payload,
      acked: false,
      ...(type === 'events_api'
        ? { retry_attempt: retry?.attempt ?? 0, retry_reason: retry?.reason ?? '' }
        : {}),
    };
    envelopes.push(envelope);
    if (envelopeFilter) void filtered(envelope, envelopeFilter);
    else write(envelope);
    if (options.retryUnackedAfterMs !== undefined && type === 'events_api')
      retryUnacked(envelope, options.retryUnackedAfterMs);
    return envelope;
  }

  async function filtered(envelope: FakeSlackEnvelope, filter: FakeSlackEnvelopeFilter): Promise<void> {
    if ((await filter(envelope)) === 'deliver' && !lifetime.signal.aborted) write(envelope);
  }

  function retryUnacked(envelope: FakeSlackEnvelope, afterMs: number): void {
    const timer = setTimeout(() => {
      if (envelope.acked || lifetime.signal.aborted || (envelope.retry_attempt ?? 0) >= 3) return;
      deliver(envelope.type, envelope.payload, {
        attempt: (envelope.retry_attempt ?? 0) + 1,
        reason: 'timeout',
      });
    }, afterMs);
    timer.unref();
  }

  function event(inner: Record<string, unknown>): FakeSlackEnvelope {
    eventSequence += 1;
    return deliver('events_api', {
      token: 'verification-token',
      team_id: teamId,
      api_app_id: 'A0001',
      event: { ...inner, event_ts: inner.ts },
      type: 'event_callback',
      event_id: `Ev${String(eventSequence).padStart(8, '0')}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true }],
    });
  }

  const dmOf = (user: FakeSlackUser) => `D${user.id.replace(/^U/, '')}`;

  const { baseUrl: root } = await listenOnLoopback(server);
  baseUrl = root;
  const close = closeOnce(server, lifetime);

  return {
    url: `${baseUrl}/api/`,
    botToken,
    appToken,
    botUserId,
    teamId,
    calls,
    messages: store.all,
    envelopes,
    connections: () => connections,
    connected: () => socket?.readyState === 1,
    dmOf,
    sendDm(user, text) {
      return event({
        type: 'message',
        channel: dmOf(user),
        channel_type: 'im',
        user: user.id,
        text,
        ts: store.nextUserTs(),
        team: teamId,
      });
    },
    mention(channel, user, text, mentionOptions = {}) {
      return event({
        type: 'app_mention',
        channel,
        user: user.id,
        text: `<@${botUserId}> ${text}`,
        ts: store.nextUserTs(),
        team: teamId,
        ...(mentionOptions.threadTs ? { thread_ts: mentionOptions.threadTs } : {}),
      });
    },
    sendChannelMessage(channel, user, text) {
      return event({
        type: 'message',
        channel,
        channel_type: 'channel',
        user: user.id,
        text,
        ts: store.nextUserTs(),
        team: teamId,
      });
    },
    pressButton(user, message, actionId, value) {
      return deliver('interactive', {
        type: 'block_actions',
        user: { id: user.id, username: user.name ?? user.id, team_id: teamId },
        api_app_id: 'A0001',
        token: 'verification-token',
        container: {
          type: 'message',
          message_ts: message.ts,
          channel_id: message.channel,
          is_ephemeral: false,
        },
        trigger_id: `${Date.now()}.trigger`,
        team: { id: teamId, domain: 'openlegion-test' },
        channel: { id: message.channel, name: 'directmessage' },
        message: { type: 'message', ts: message.ts, text: message.text, blocks: message.blocks ?? [] },
        response_url: `${baseUrl}/response-url`,
        actions: [
          {
            type: 'button',
            action_id: actionId,
            block_id: 'approval',
            value,
            action_ts: `${Date.now() / 1000}`,
            text: { type: 'plain_text', text: actionId },
          },
        ],
      });
    },
    replay(envelope, reason = 'timeout') {
      return deliver(envelope.type, envelope.payload, { attempt: (envelope.retry_attempt ?? 0) + 1, reason });
    },
    disconnect(reason) {
      socket?.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-slack' } }));
    },
    dropConnection() {
      socket?.terminate();
      socket = undefined;
    },
    fail(method, fault, times = 1) {
      faults.push({ method, fault, left: times });
    },
    setEnvelopeFilter(filter) {
      envelopeFilter = filter;
    },
    setFaultPicker(picker) {
      faultPicker = picker;
    },
    messagesIn: (channel) => store.all.filter((message) => message.channel === channel),
    async waitFor<T>(probe: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = probe();
        if (value !== undefined && value !== false) return value;
        if (Date.now() > deadline) throw new Error('fake slack: waitFor timed out');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await close();
    },
  };
}
