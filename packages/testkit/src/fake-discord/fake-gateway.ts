import type { WebSocket } from 'ws';
import type { FakeDiscordUser, FakeGatewayEvent } from './discord-types.js';

/** Gateway opcodes the fake speaks (https://discord.com/developers/docs/topics/opcodes-and-status-codes). */
export const OP = {
  DISPATCH: 0,
  HEARTBEAT: 1,
  IDENTIFY: 2,
  RESUME: 6,
  RECONNECT: 7,
  INVALID_SESSION: 9,
  HELLO: 10,
  HEARTBEAT_ACK: 11,
} as const;

/** Intents Discord only grants when switched on in the developer portal. */
export const PRIVILEGED_INTENTS = {
  GUILD_MEMBERS: 1 << 1,
  GUILD_PRESENCES: 1 << 8,
  MESSAGE_CONTENT: 1 << 15,
} as const;

type Payload = { op: number; d: unknown; s?: number | null; t?: string | null };

interface Session {
  id: string;
  seq: number;
  /** Every dispatch of the session, for RESUME to replay what a client missed. */
  log: { s: number; t: string; d: unknown }[];
  socket: WebSocket | undefined;
  /** Set once it was invalidated: RESUME gets op 9. */
  dead: boolean;
}

export interface FakeGatewayOptions {
  token: string;
  bot: FakeDiscordUser;
  applicationId: string;
  heartbeatIntervalMs: number;
  /** Privileged intents the application may use; IDENTIFY asking for others is closed with 4014. */
  allowedPrivilegedIntents: number;
  /** The URL READY gives as `resume_gateway_url`. */
  resumeUrl: string;
  newId: () => string;
}

/**
 * The Gateway side of the fake: HELLO, heartbeats and ACKs, IDENTIFY → READY, RESUME (replaying
 * what the client missed, then RESUMED), dispatches with sequence numbers, and the server's own
 * moves (op 7 reconnect, op 9 invalid session, a dropped connection, a close code).
 */
export class FakeGateway {
  readonly events: FakeGatewayEvent[] = [];
  readonly identifies: { intents: number; at: number }[] = [];
  readonly resumes: { sessionId: string; seq: number; at: number }[] = [];
  readonly #sessions = new Map<string, Session>();
  #current: Session | undefined;
  /** Dispatches made before the bot first connected: sent after READY so a test need not wait. */
  readonly #early: { t: string; d: unknown }[] = [];
  #connections = 0;
  /** Dispatches the next RESUME sends again although the client saw them (Discord may redeliver). */
  #rewind = 0;
  /** Each open socket's writer (it records what it sends). */
  readonly #senders = new WeakMap<WebSocket, (payload: Payload) => void>();

  constructor(private readonly options: FakeGatewayOptions) {}

  /** Whether a session is READY (or RESUMED) on an open socket. */
  get connected(): boolean {
    return this.#current?.socket?.readyState === 1;
  }

  /** How many WebSocket connections were opened. */
  get connectionCount(): number {
    return this.#connections;
  }

  accept(socket: WebSocket): void {
    const connection = ++this.#connections;
    let session: Session | undefined;
    const send = (payload: Payload) => {
      if (socket.readyState !== 1) return;
      this.events.push({
        connection,
        op: payload.op,
        ...(payload.t ? { t: payload.t } : {}),
        s: payload.s ?? null,
        direction: 'out',
        at: Date.now(),
      });
      socket.send(JSON.stringify({ s: null, t: null, ...payload }));
    };
    this.#senders.set(socket, send);
    send({ op: OP.HELLO, d: { heartbeat_interval: this.options.heartbeatIntervalMs } });
    socket.on('message', (raw) => {
      let payload: { op?: number; d?: Record<string, unknown> | number | null };
      try {
        payload = JSON.parse(String(raw)) as typeof payload;
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      this.events.push({ connection, op: payload.op ?? -1, direction: 'in', at: Date.now() });
      const d = typeof payload.d === 'object' && payload.d !== null ? payload.d : {};
      switch (payload.op) {
        case OP.HEARTBEAT:
          send({ op: OP.HEARTBEAT_ACK, d: null });
          return;
        case OP.IDENTIFY: {
          if (d.token !== this.options.token) return socket.close(4004, 'Authentication failed.');
          const intents = Number(d.intents ?? 0);
          this.identifies.push({ intents, at: Date.now() });
          const privileged =
            PRIVILEGED_INTENTS.GUILD_MEMBERS |
            PRIVILEGED_INTENTS.GUILD_PRESENCES |
            PRIVILEGED_INTENTS.MESSAGE_CONTENT;
          if (intents & privileged & ~this.options.allowedPrivilegedIntents)
            return socket.close(4014, 'Disallowed intent(s).');
          if (this.#current?.socket && this.#current.socket !== socket) this.#current.socket.terminate();
          session = { id: this.options.newId(), seq: 0, log: [], socket, dead: false };
          this.#sessions.set(session.id, session);
          this.#current = session;
          this.#dispatchTo(session, 'READY', {
            v: 10,
            user: { ...this.options.bot, bot: true, discriminator: '0', avatar: null },
            guilds: [],
            session_id: session.id,
            resume_gateway_url: this.options.resumeUrl,
            application: { id: this.options.applicationId, flags: 0 },
            shard: [0, 1],
          });
          for (const early of this.#early.splice(0)) this.#dispatchTo(session, early.t, early.d);
          return;
        }
        case OP.RESUME: {
          const found = this.#sessions.get(String(d.session_id));
          if (d.token !== this.options.token) return socket.close(4004, 'Authentication failed.');
          this.resumes.push({ sessionId: String(d.session_id), seq: Number(d.seq), at: Date.now() });
          if (!found || found.dead) {
            send({ op: OP.INVALID_SESSION, d: false });
            return;
          }
          if (found.socket && found.socket !== socket) found.socket.terminate();
          found.socket = socket;
          session = found;
          this.#current = found;
          const from = Math.max(0, Number(d.seq) - this.#rewind);
          this.#rewind = 0;
          for (const missed of found.log.filter((entry) => entry.s > from && entry.t !== 'READY'))
            send({ op: OP.DISPATCH, t: missed.t, s: missed.s, d: missed.d });
          this.#dispatchTo(found, 'RESUMED', {});
          return;
        }
        default:
          socket.close(4001, 'Unknown opcode.');
      }
    });
    socket.on('close', () => {
      if (session?.socket === socket) session.socket = undefined;
    });
  }

  /** Send an event to the bot (queued for RESUME while it is disconnected); returns its sequence. */
  dispatch(t: string, d: unknown): number | undefined {
    if (!this.#current) {
      this.#early.push({ t, d });
      return undefined;
    }
    return this.#dispatchTo(this.#current, t, d);
  }

  /** Make the next RESUME replay the last `count` dispatches the client had already received. */
  rewindNextResume(count: number): void {
    this.#rewind = count;
  }

  /** Op 7: ask the bot to reconnect and resume. */
  requestReconnect(): void {
    this.#sendRaw({ op: OP.RECONNECT, d: null });
  }

  /** Op 9: the session is invalid; `resumable` false ends it, so the bot must IDENTIFY again. */
  invalidateSession(resumable: boolean): void {
    if (!resumable && this.#current) this.#current.dead = true;
    this.#sendRaw({ op: OP.INVALID_SESSION, d: resumable });
  }

  /** Cut the connection without a close frame (a network fault); the session stays resumable. */
  dropConnection(): void {
    this.#current?.socket?.terminate();
  }

  /** Close the connection with a gateway close code (4000 unknown error, 4014 disallowed intents, ...). */
  closeWith(code: number, reason = 'closed by the fake'): void {
    this.#current?.socket?.close(code, reason);
  }

  close(): void {
    for (const session of this.#sessions.values()) session.socket?.terminate();
  }

  #dispatchTo(session: Session, t: string, d: unknown): number {
    session.seq += 1;
    const s = session.seq;
    session.log.push({ s, t, d });
    if (session.socket) this.#senders.get(session.socket)?.({ op: OP.DISPATCH, t, s, d });
    return s;
  }

  #sendRaw(payload: Payload): void {
    const socket = this.#current?.socket;
    if (socket) this.#senders.get(socket)?.(payload);
  }
}
