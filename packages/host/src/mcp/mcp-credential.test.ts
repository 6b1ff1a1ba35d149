import { FakeClock } from '@openlegion/infra/clock';
import { mcpRemoteServerSchema } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { environmentSecrets } from '../secrets/index.js';
import { McpCredential, TOKEN_EXPIRY_MARGIN_MS, type TokenPost } from './mcp-credential.js';

const oauth = mcpRemoteServerSchema.parse({
  url: 'http://127.0.0.1:1/mcp',
  auth: {
    oauth: {
      token_url: 'http://127.0.0.1:2/token',
      client_id: 'me',
      client_secret: 'vault:SECRET',
      scope: 'a b',
    },
  },
});

function credential(answers: { status: number; text: string }[], clock = new FakeClock(0)) {
  const forms: URLSearchParams[] = [];
  const post: TokenPost = async (_url, form) => {
    forms.push(form);
    const answer = answers.shift();
    if (!answer) throw new Error('no more answers');
    return answer;
  };
  const made = new McpCredential({
    server: 's',
    config: oauth,
    secrets: environmentSecrets({ SECRET: 'shh', BEARER: 'tok' }),
    clock,
    post,
  });
  return { made, forms, clock };
}
const token = (value: string, expiresIn?: number) => ({
  status: 200,
  text: JSON.stringify({
    access_token: value,
    token_type: 'bearer',
    ...(expiresIn ? { expires_in: expiresIn } : {}),
  }),
});

describe('McpCredential', () => {
  it('sends a bearer token from the vault as it is', async () => {
    const made = new McpCredential({
      server: 's',
      config: mcpRemoteServerSchema.parse({ url: 'http://127.0.0.1:1/', auth: { bearer: 'vault:BEARER' } }),
      secrets: environmentSecrets({ BEARER: 'tok' }),
      clock: new FakeClock(0),
      post: async () => ({ status: 500, text: '' }),
    });
    expect(await made.authorization()).toBe('Bearer tok');
    expect(made.refreshable).toBe(false);
  });

  it('gets a token with the client credentials grant and keeps it until shortly before it expires', async () => {
    const { made, forms, clock } = credential([token('one', 600), token('two', 600)]);
    expect(await made.authorization()).toBe('Bearer one');
    expect(Object.fromEntries(forms[0] ?? [])).toEqual({
      grant_type: 'client_credentials',
      client_id: 'me',
      client_secret: 'shh',
      scope: 'a b',
    });
    await clock.advance(600_000 - TOKEN_EXPIRY_MARGIN_MS - 1);
    expect(await made.authorization()).toBe('Bearer one');
    await clock.advance(1);
    expect(await made.authorization()).toBe('Bearer two');
    expect(forms).toHaveLength(2);
  });

  it('shares one fetch between calls that need a token at once, and fetches again when invalidated', async () => {
    const { made, forms } = credential([token('one'), token('two')]);
    expect(await Promise.all([made.authorization(), made.authorization()])).toEqual([
      'Bearer one',
      'Bearer one',
    ]);
    made.invalidate();
    expect(await made.authorization()).toBe('Bearer two');
    expect(forms).toHaveLength(2);
  });

  it('refuses an answer without a bearer access token', async () => {
    const { made } = credential([{ status: 200, text: '{"access_token":"x","token_type":"mac"}' }]);
    await expect(made.authorization()).rejects.toMatchObject({
      code: 'MCP_UPSTREAM_FAILED',
      message:
        'the OAuth token endpoint of MCP server "s" (127.0.0.1:2) answered without a bearer access_token (expected JSON with access_token and token_type "Bearer")',
    });
  });

  it('reports a token endpoint failing', async () => {
    const { made } = credential([{ status: 500, text: 'oops' }]);
    await expect(made.authorization()).rejects.toMatchObject({
      code: 'MCP_UPSTREAM_FAILED',
      message: 'the OAuth token endpoint of MCP server "s" (127.0.0.1:2) answered HTTP 500',
    });
  });
});
