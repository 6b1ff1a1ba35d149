import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentSelf,
  type AgentTool,
  agentSelfSchema,
  type ChatEvent,
  textResult,
} from '@openlegion/protocol';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import type OpenAI from 'openai';
import { pino } from 'pino';
import { z } from 'zod';
import type { ToolApprovalGate } from '../src/approvals/tool-approval-gate.js';
import type { ContextManager } from '../src/context/context-manager.js';
import { ConversationStore } from '../src/conversation-store.js';
import { loadLlmClient } from '../src/llm-client.js';
import { type AgentLoop, createAgentLoop } from '../src/loop/agent-loop.js';
import type { MemoryRecall } from '../src/memory-recall/index.js';
import type { SkillSnapshot } from '../src/skills/index.js';
import { type InstructionSource, TEMPLATE_INSTRUCTIONS } from '../src/workspace/operator-instructions.js';
import { scaffoldWorkspace } from '../src/workspace/workspace-scaffold.js';
import { createPassThroughContextManager } from './pass-through-context-manager.js';

export const TEST_MODEL = 'scripted/gpt-test';

/** One message of a request the fake LLM received. */
export interface SentMessage {
  role: string;
  content: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The parts of a chat completion request the tests look at. */
export interface SentRequest {
  model: string;
  messages: SentMessage[];
  tools?: { function: { name: string; parameters: unknown } }[];
}

/** A context manager that passes through and records what it was asked. */
export function recordingContextManager(): ContextManager & { calls: string[] } {
  const inner = createPassThroughContextManager();
  const calls: string[] = [];
  return {
    calls,
    prepare: (request) => {
      calls.push('prepare');
      return inner.prepare(request);
    },
    compact: (request, reason) => {
      calls.push(`compact:${reason}`);
      return inner.compact(request, reason);
    },
  };
}

/** An in-memory counter: `increment` adds one and answers `count=N`. */
export function counterTool(): AgentTool<{ by: number }> & { value: () => number } {
  let count = 0;
  return {
    name: 'counter',
    group: 'memory',
    description: 'Adds `by` to a counter and tells its value.',
    input: z.object({ by: z.number().int().default(1) }),
    run: async (input) => {
      count += input.by;
      return textResult(`count=${count}`);
    },
    value: () => count,
  };
}

export interface LoopHarness {
  llm: FakeLlm;
  loop: AgentLoop;
  store: ConversationStore;
  workspace: string;
  /** Chat completion requests the fake LLM received, in order. */
  sent(): SentRequest[];
  /** Run a chat turn and collect its events. */
  chat(
    message: string,
    options?: {
      conversationId?: string;
      signal?: AbortSignal;
      drainSteered?: () => string[];
      traceId?: string;
    },
  ): Promise<ChatEvent[]>;
  task(message: string, maxIterations?: number): Promise<ChatEvent[]>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  script: unknown;
  tools?: AgentTool[];
  self?: Partial<AgentSelf>;
  contextManager?: ContextManager;
  /** Instant by default: retries take no real time. */
  sleeps?: number[];
  streamIdleTimeoutMs?: number;
  /** The operator's AGENTS.md and SOUL.md; the built-in templates by default. */
  instructions?: InstructionSource;
  /** Automatic recall (none by default). */
  recall?: MemoryRecall;
  /** Tools that ask first (none by default). */
  approval?: ToolApprovalGate;
  /** The agent's skills (none by default). */
  skills?: () => Promise<SkillSnapshot>;
}

/** A loop against the scripted LLM on loopback, with a real store and a scaffolded workspace. */
export async function startLoopHarness(options: HarnessOptions): Promise<LoopHarness> {
  const self = agentSelfSchema.parse({
    agent: 'a',
    mesh: 'm',
    role: 'tester',
    model: TEST_MODEL,
    soul: '',
    // These tests are about the loop with toy tools, which are not core tools: every tool is offered
    // unless a test is about loading on demand (it sets `tool_loading: 'on_demand'`).
    tool_loading: 'all',
    ...options.self,
  });
  const llm = await startFakeLlm({ script: { models: [TEST_MODEL], ...(options.script as object) } });
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-loop-'));
  const store = ConversationStore.open(dataDir);
  const workspace = join(dataDir, 'workspace');
  await scaffoldWorkspace(workspace);
  const client: Promise<OpenAI> = loadLlmClient({
    meshUrl: new URL(llm.url).origin,
    token: 'loop-test-token',
  });
  const sleeps = options.sleeps ?? [];
  const loop = createAgentLoop({
    self,
    store,
    llm: () => client,
    contextManager: options.contextManager ?? createPassThroughContextManager(),
    tools: options.tools ?? [],
    workspace,
    instructions: options.instructions ?? TEMPLATE_INSTRUCTIONS,
    logger: pino({ level: 'silent' }),
    ...(options.recall ? { recall: options.recall } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.skills ? { skills: options.skills } : {}),
    ...(options.streamIdleTimeoutMs ? { streamIdleTimeoutMs: options.streamIdleTimeoutMs } : {}),
    clock: {
      now: () => Date.parse('2026-03-04T05:06:07Z'),
      setTimeout: () => ({ cancel: () => {} }),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
  });
  const collect = async (run: (emit: (event: ChatEvent) => void) => Promise<void>) => {
    const events: ChatEvent[] = [];
    await run((event) => events.push(event));
    return events;
  };
  return {
    llm,
    loop,
    store,
    workspace,
    sent: () =>
      llm.requests
        .filter((request) => request.path === '/v1/chat/completions')
        .map((request) => request.body as SentRequest),
    chat: (message, chatOptions = {}) =>
      collect((emit) =>
        loop.runChat(
          {
            message,
            conversationId: chatOptions.conversationId ?? 'c',
            ...(chatOptions.traceId ? { traceId: chatOptions.traceId } : {}),
            ...(chatOptions.drainSteered ? { drainSteered: chatOptions.drainSteered } : {}),
          },
          emit,
          chatOptions.signal ?? new AbortController().signal,
        ),
      ),
    task: (message, maxIterations) =>
      collect((emit) =>
        loop.runTask(
          { message, conversationId: 't', ...(maxIterations ? { maxIterations } : {}) },
          emit,
          new AbortController().signal,
        ),
      ),
    close: async () => {
      store.close();
      await llm.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The text of a sent message (string content or its text parts). */
export function textOf(message: SentMessage | undefined): string {
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content
    .map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : ''))
    .join('');
}
