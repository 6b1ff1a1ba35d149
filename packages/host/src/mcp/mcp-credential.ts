import type { Clock } from '@openlegion/infra/clock';
import { type DeepReadonly, type McpRemoteServerConfig, OpenLegionError } from '@openlegion/protocol';
import { parseSecretReference, type SecretSource } from '../secrets/index.js';

/**
 * An access token is refreshed this long before the expiry its endpoint gave, so a call started
 * just before the expiry does not arrive with a token that has lapsed on the way.
 */
export const TOKEN_EXPIRY_MARGIN_MS = 30_000;
/** A token endpoint that gives no `expires_in`: fetch again after this long. */
const DEFAULT_TOKEN_LIFETIME_MS = 5 * 60_000;
/** The most of a token endpoint's answer read (a token answer is a few hundred bytes). */
export const TOKEN_ANSWER_MAX_BYTES = 64 * 1024;

/** One form POST to a token endpoint; resolves with any status. */
export type TokenPost = (
  url: URL,
  form: URLSearchParams,
  timeoutMs: number,
) => Promise<{ status: number; text: string }>;

/**
 * The `Authorization` value the host sends a remote MCP server for every agent it proxies:
 * a bearer token from the vault, or an OAuth 2.1 access token it gets with the client credentials
 * grant (RFC 6749 §4.4) from `token_url`, keeps until shortly before it expires, and fetches anew
 * once when the server answers 401. No value ever reaches an agent; messages name the vault entry.
 */
export class McpCredential {
  readonly #server: string;
  readonly #config: DeepReadonly<McpRemoteServerConfig>;
  readonly #secrets: SecretSource;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #post: TokenPost;
  #token: { value: string; expiresAt: number } | undefined;
  #fetching: Promise<string> | undefined;

  constructor(options: {
    server: string;
    config: DeepReadonly<McpRemoteServerConfig>;
    secrets: SecretSource;
    clock: Pick<Clock, 'now'>;
    post: TokenPost;
  }) {
    this.#server = options.server;
    this.#config = options.config;
    this.#secrets = options.secrets;
    this.#clock = options.clock;
    this.#post = options.post;
  }

  /** Whether a 401 may be answered by fetching a new token (OAuth) and trying once more. */
  get refreshable(): boolean {
    return this.#config.auth !== undefined && 'oauth' in this.#config.auth;
  }

  /** The header value, or undefined when the server takes no auth. */
  async authorization(): Promise<string | undefined> {
    const auth = this.#config.auth;
    if (!auth) return undefined;
    if ('bearer' in auth) return `Bearer ${this.#secret(auth.bearer, 'auth.bearer')}`;
    const token = this.#token;
    if (token && this.#clock.now() < token.expiresAt) return `Bearer ${token.value}`;
    return `Bearer ${await this.#fetchOnce()}`;
  }

  /** Forget the cached access token (the server refused it): the next call fetches another. */
  invalidate(): void {
    this.#token = undefined;
  }

  /** The vault entries this credential reads (for messages; never their values). */
  get secretNames(): string[] {
    const auth = this.#config.auth;
    if (!auth) return [];
    return [parseSecretReference('bearer' in auth ? auth.bearer : auth.oauth.client_secret).name];
  }

  /** Calls that need a token at the same moment share one fetch. */
  #fetchOnce(): Promise<string> {
    this.#fetching ??= this.#fetchToken().finally(() => {
      this.#fetching = undefined;
    });
    return this.#fetching;
  }

  async #fetchToken(): Promise<string> {
    const auth = this.#config.auth;
    if (!auth || !('oauth' in auth)) throw new Error('no OAuth settings');
    const { oauth } = auth;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: oauth.client_id,
      client_secret: this.#secret(oauth.client_secret, 'auth.oauth.client_secret'),
    });
    if (oauth.scope) form.set('scope', oauth.scope);
    const url = new URL(oauth.token_url);
    const started = this.#clock.now();
    const answer = await this.#post(url, form, this.#config.timeout_ms);
    const where = `the OAuth token endpoint of MCP server "${this.#server}" (${url.host})`;
    if (answer.status === 400 || answer.status === 401 || answer.status === 403)
      throw new OpenLegionError(
        'MCP_UPSTREAM_AUTH',
        `${where} refused the client credentials (HTTP ${answer.status}${oauthError(answer.text)}): check mcp.servers.${this.#server}.auth.oauth in mesh.yaml and the vault entry ${this.secretNames.join(', ')}`,
        { details: { server: this.#server, status: answer.status } },
      );
    if (answer.status < 200 || answer.status >= 300)
      throw new OpenLegionError('MCP_UPSTREAM_FAILED', `${where} answered HTTP ${answer.status}`, {
        details: { server: this.#server, status: answer.status },
      });
    const token = parseTokenAnswer(answer.text);
    if (!token)
      throw new OpenLegionError(
        'MCP_UPSTREAM_FAILED',
        `${where} answered without a bearer access_token (expected JSON with access_token and token_type "Bearer")`,
        { details: { server: this.#server } },
      );
    const lifetimeMs = token.expiresIn === undefined ? DEFAULT_TOKEN_LIFETIME_MS : token.expiresIn * 1000;
    // Counted from when the request left, so time spent waiting for the answer is not added.
    this.#token = {
      value: token.accessToken,
      expiresAt: started + Math.max(0, lifetimeMs - TOKEN_EXPIRY_MARGIN_MS),
    };
    return token.accessToken;
  }

  #secret(reference: string, field: string): string {
    const parsed = parseSecretReference(reference);
    const value = this.#secrets.lookup(parsed);
    if (value) return value;
    throw new OpenLegionError(
      'MCP_CREDENTIAL_MISSING',
      `MCP server "${this.#server}" needs ${reference} (mcp.servers.${this.#server}.${field} in mesh.yaml), which is not set: ${this.#secrets.howToSet(parsed)}`,
      { details: { server: this.#server, secret: parsed.name } },
    );
  }
}

/** `access_token`, `token_type` (Bearer, any case) and `expires_in` of a token answer (RFC 6749 §5.1). */
function parseTokenAnswer(text: string): { accessToken: string; expiresIn?: number } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { access_token, token_type, expires_in } = body as Record<string, unknown>;
  if (typeof access_token !== 'string' || !/^[\x21-\x7e]{1,4096}$/.test(access_token)) return undefined;
  if (typeof token_type !== 'string' || token_type.toLowerCase() !== 'bearer') return undefined;
  const seconds = typeof expires_in === 'string' ? Number(expires_in) : expires_in;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0
    ? { accessToken: access_token, expiresIn: seconds }
    : { accessToken: access_token };
}

/** `: invalid_client` from an RFC 6749 §5.2 error answer, clipped; '' otherwise. */
function oauthError(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: unknown };
    return typeof error === 'string' && /^[\x20-\x7e]{1,60}$/.test(error) ? `: ${error}` : '';
  } catch {
    return '';
  }
}
