import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { createMeshHost, type MeshHost } from '@openlegion/host/mesh';
import { findFreePorts } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import {
  type FakeLlm,
  type FakeOtlpCollector,
  type ReceivedSpan,
  startFakeLlm,
  startFakeOtlpCollector,
} from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { InProcessRuntime } from '../../test/in-process-runtime.js';
import { runCli } from '../program.js';

/**
 * One `openlegion send` through the whole mesh with `telemetry.otlp_endpoint` set: the real agent
 * loop calls a tool (a mesh call) and the host's LLM proxy twice, and a loopback OTLP collector
 * gets one trace whose spans link lane → invoke_agent → chat / execute_tool / mesh call, across
 * the host and the agent (the agent passes on the traceparent the host gave its turn).
 */
describe('one chat, one OpenTelemetry trace across host and agent', () => {
  let dir: string;
  let meshFile: string;
  let llm: FakeLlm;
  let otlp: FakeOtlpCollector;
  let host: MeshHost;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-telemetry-'));
    otlp = await startFakeOtlpCollector();
    llm = await startFakeLlm({
      script: {
        rules: [
          {
            match: { role: 'user', last_message: 'announce the tides notes' },
            reply: {
              tool_calls: [
                {
                  name: 'publish',
                  arguments: { topic: 'research.done', payload: { key: 'research/tides' } },
                },
              ],
            },
          },
        ],
        default: { text: 'announced' },
      },
    });
    const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: otel, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/gpt-test
  providers: { up: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1" } }
agents:
  researcher: { tools: [publish], permissions: { pubsub: { publish: ["research.*"] } } }
telemetry: { otlp_endpoint: "${otlp.baseUrl}", export_interval_ms: 50 }
`,
    );
    host = createMeshHost({
      loaded: await loadMeshConfig(meshFile),
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: {},
      agentEntry: '/unused',
      agentRuntime: new InProcessRuntime(),
      baseUrlOverrides: { up: llm.url },
    });
    await host.start();
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
    await llm?.close();
    await otlp?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('links the lane, the turn, both LLM calls, the tool and its mesh call in one trace', async () => {
    const output = capture();
    const code = await runCli(
      ['node', 'openlegion', 'send', 'researcher', 'announce the tides notes', '-c', meshFile],
      output,
    );
    expect(code).toBe(0);
    expect(output.stdout()).toMatch(/published event 1 on research\.done\n.*announced\n$/s);

    const [lane] = await otlp.waitForSpans(1, (span) => span.name === 'lane researcher');
    const trace = (lane as ReceivedSpan).traceId;
    const inTrace = await otlp.waitForSpans(6, (span) => span.traceId === trace);
    const named = (name: string) => inTrace.filter((span) => span.name === name);

    expect(lane).toMatchObject({ parentSpanId: undefined, attributes: { 'openlegion.lane.source': 'cli' } });
    const [turn] = named('invoke_agent researcher');
    expect(turn).toMatchObject({
      parentSpanId: lane?.spanId,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'researcher' },
    });
    const chats = named('chat gpt-test');
    expect(chats).toHaveLength(2);
    for (const chat of chats)
      expect(chat).toMatchObject({
        parentSpanId: turn?.spanId,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'up',
          'gen_ai.request.model': 'gpt-test',
          'openlegion.agent': 'researcher',
        },
      });
    expect(chats.map((chat) => chat.attributes['gen_ai.response.finish_reasons']).sort()).toEqual([
      ['stop'],
      ['tool_calls'],
    ]);
    expect(named('execute_tool publish')).toEqual([
      expect.objectContaining({
        parentSpanId: turn?.spanId,
        attributes: expect.objectContaining({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'publish',
        }),
      }),
    ]);
    expect(named('POST /mesh/pubsub/publish')).toEqual([
      expect.objectContaining({ parentSpanId: turn?.spanId, kind: 2 }),
    ]);

    // The provider heard each chat's own span as its parent (W3C traceparent on that hop too).
    const llmParents = llm.requests.map((request) => request.headers.traceparent).sort();
    expect(llmParents).toEqual(chats.map((chat) => `00-${trace}-${chat.spanId}-01`).sort());
  });
});
