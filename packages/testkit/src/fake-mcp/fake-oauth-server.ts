import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeOnce, listenOnLoopback } from '../loopback-server.js';

export interface FakeOAuthOptions {
  clientId: string;
  clientSecret: string;
  /** `expires_in` of each token it issues, in seconds; default 3600. */
  expiresInS?: number;
}

/** One token request the fake received (the secret is only said to match or not). */
export interface FakeOAuthRequest {
  grantType: string | null;
  clientId: string | null;
  secretMatched: boolean;
  scope: string | null;
}

/** A running fake OAuth 2.1 authorization server: only its token endpoint. */
export interface FakeOAuth {
  /** Its `token_url` for mesh.yaml. */
  tokenUrl: string;
  requests: FakeOAuthRequest[];
  /** Every access token it issued, in order. */
  issued: string[];
  /** Whether `token` is one it issued and has not revoked. */
  valid(token: string): boolean;
  /** Revoke every token issued so far (a resource server checking them refuses them then). */
  revokeAll(): void;
  /** Answer every token request with this status (and an RFC 6749 error) until set back to 200. */
  setStatus(status: number): void;
  close(): Promise<void>;
}

/**
 * A token endpoint speaking RFC 6749's client credentials grant (§4.4) as an OAuth 2.1 server does:
 * `POST /token` with a form body, the client authenticated by `client_secret_post` or HTTP Basic
 * (`client_secret_basic`); it answers `{access_token, token_type: "Bearer", expires_in}`, or 400
 * `unsupported_grant_type`, or 401 `invalid_client`.
 */
export async function startFakeOAuth(options: FakeOAuthOptions): Promise<FakeOAuth> {
  const requests: FakeOAuthRequest[] = [];
  const issued: string[] = [];
  const live = new Set<string>();
  let status = 200;
  const lifetime = new AbortController();
  const server = createServer((req, res) => {
    void answer(req, res);
  });
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    let clientId = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (basic) {
      const [id, pass] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      clientId = decodeURIComponent(id ?? '');
      secret = decodeURIComponent(pass ?? '');
    }
    const secretMatched = secret === options.clientSecret;
    const grantType = form.get('grant_type');
    requests.push({ grantType, clientId, secretMatched, scope: form.get('scope') });
    const send = (code: number, body: object) => {
      res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/token')
      return send(404, { error: 'not_found' });
    if (status !== 200) return send(status, { error: status === 401 ? 'invalid_client' : 'server_error' });
    if (grantType !== 'client_credentials') return send(400, { error: 'unsupported_grant_type' });
    if (clientId !== options.clientId || !secretMatched) return send(401, { error: 'invalid_client' });
    const token = randomBytes(24).toString('base64url');
    issued.push(token);
    live.add(token);
    send(200, { access_token: token, token_type: 'Bearer', expires_in: options.expiresInS ?? 3600 });
  };
  const { baseUrl } = await listenOnLoopback(server);
  return {
    tokenUrl: `${baseUrl}/token`,
    requests,
    issued,
    valid: (token) => live.has(token),
    revokeAll: () => live.clear(),
    setStatus: (code) => {
      status = code;
    },
    close: closeOnce(server, lifetime),
  };
}
