import type { MeshConfigInput } from '@openlegion/protocol';
import { type FakeAnthropic, type FakeLlm, startFakeAnthropic, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { costsFeature } from '../costs/index.js';
import { environmentSecrets } from '../secrets/index.js';
import { llmFeature } from './llm-feature.js';

const KEYS = { ANTHROPIC_OLD: 'sk-ant-revoked-0001', ANTHROPIC: 'sk-ant-live-0002', OAI: 'sk-oai-0003' };

// Providers that echo the key they were sent in their errors, as some do.
const SCRIPT = `
models: [claude-test, gpt-test]
rules:
  - match: { last_message: echo, model: claude-test }
    fail: { status: 400, message: "bad request for key ${KEYS.ANTHROPIC}" }
  - match: { last_message: overloaded, model: claude-test }
    fail: { status: 529, message: "Overloaded (key ${KEYS.ANTHROPIC})" }
  - match: { last_message: overloaded, model: gpt-test }
    fail: { status: 503, message: "down (key ${KEYS.OAI})" }
default: { text: "fine" }
`;

const config: MeshConfigInput = {
  llm: {
    default_model: 'anthropic/claude-test',
    fallbacks: ['oai/gpt-test'],
    embedding_model: 'oai/text-embedding-test',
    providers: {
      anthropic: { api_keys: ['env:ANTHROPIC_OLD', 'env:ANTHROPIC'] },
      oai: { kind: 'openai-compatible', api_key: 'env:OAI' },
    },
  },
  agents: { a: {} },
};

describe('provider keys and the host log', () => {
  let anthropic: FakeAnthropic;
  let oai: FakeLlm;
  let host: FeatureTestHost;
  const lines: string[] = [];

  beforeAll(async () => {
    anthropic = await startFakeAnthropic({ script: SCRIPT, apiKeys: [KEYS.ANTHROPIC] });
    oai = await startFakeLlm({ script: SCRIPT });
    const costs = costsFeature();
    host = await startFeatureTestHost(
      [costs, llmFeature({ baseUrlOverrides: { anthropic: anthropic.url, oai: oai.url }, meterCosts: true })],
      config,
      { secrets: environmentSecrets(KEYS), logTo: { write: (line) => lines.push(line) } },
    );
  });
  afterAll(async () => {
    await host.stop();
    await anthropic.close();
    await oai.close();
  });

  it('never writes a key to the log, at debug level, through answers, refused keys, failover and echoed errors', async () => {
    const call = (content: string, stream = false) =>
      host.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: host.agentAuth('a'),
        payload: { model: 'anthropic/claude-test', stream, messages: [{ role: 'user', content }] },
      });
    const answers = [
      await call('hi'),
      await call('hi', true),
      await call('hi'),
      await call('echo'),
      await call('overloaded'),
      await host.app.inject({
        method: 'POST',
        url: '/v1/embeddings',
        headers: host.agentAuth('a'),
        payload: { input: 'x' },
      }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 400, 503, 200]); // the echoed 400 is the provider's own status
    const everything = [...lines, ...answers.map((answer) => answer.body)].join('\n');
    // The log did see the calls, the refused key and the failover...
    expect(everything).toContain('failover: key refused');
    expect(everything).toContain('failover: model failed');
    // ...and no key, in the log or in any answer.
    for (const key of Object.values(KEYS)) expect(everything).not.toContain(key);
  });
});
