import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './index.js';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('createLogger', () => {
  it('never writes a bearer token from request headers', () => {
    const out = capture();
    const logger = createLogger({ level: 'info', destination: out.stream });
    logger.info({ req: { headers: { authorization: 'Bearer tok-secret-123' } } }, 'request');
    expect(out.text()).not.toContain('tok-secret-123');
    expect(out.text()).toContain('[redacted]');
  });

  it('never writes provider keys, tokens or the mesh token nested in logged objects', () => {
    const out = capture();
    const logger = createLogger({ level: 'info', destination: out.stream });
    logger.info(
      {
        provider: { apiKey: 'sk-live-aaa', api_key: 'sk-live-bbb' },
        agent: { token: 'agent-token-ccc' },
        env: { MESH_TOKEN: 'mesh-token-ddd' },
        vault: { key: 'vault-key-eee', password: 'pw-fff', secret: 'secret-ggg' },
      },
      'config',
    );
    for (const secret of [
      'sk-live-aaa',
      'sk-live-bbb',
      'agent-token-ccc',
      'mesh-token-ddd',
      'vault-key-eee',
      'pw-fff',
      'secret-ggg',
    ]) {
      expect(out.text()).not.toContain(secret);
    }
  });

  it('keeps the fields that are not secret', () => {
    const out = capture();
    const logger = createLogger({ level: 'info', destination: out.stream });
    logger.info({ agent: 'a', provider: 'openai', ms: 12 }, 'llm call');
    expect(JSON.parse(out.text())).toMatchObject({ agent: 'a', provider: 'openai', ms: 12, msg: 'llm call' });
  });
});
