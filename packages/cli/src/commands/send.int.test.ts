import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ChatEvent, errorBody, formatSseEvent } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../test/captured-output.js';
import { EXIT_TRY_AGAIN } from '../exit-code.js';
import { runCli } from '../program.js';

const BUDGET_TEXT =
  'LLM call failed: 402 agent "alpha" has spent its daily budget of $0.01; it resets at 00:00 UTC';

describe('openlegion send: an error under the turn keeps its code', () => {
  let dir: string;
  let meshFile: string;
  let server: Server;
  let answer: (response: ServerResponse) => void = (response) => response.end();

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'cli-send-'));
    // A stand-in operator API: each test says how POST /api/agents/alpha/chat answers.
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => answer(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    meshFile = path.join(dir, 'mesh.yaml');
    await writeFile(
      meshFile,
      `mesh: { name: t, port: ${port}, data_dir: data }\nllm: { providers: { openai: {} } }\nagents: { alpha: {} }\n`,
    );
    await mkdir(path.join(dir, 'data'));
    await writeFile(path.join(dir, 'data', 'operator-token'), 'op-token\n');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const send = async () => {
    const output = capture();
    const code = await runCli(['node', 'openlegion', 'send', 'alpha', 'hello', '-c', meshFile], output);
    return { code, out: output.stdout(), err: output.stderr() };
  };
  const streams = (...events: ChatEvent[]) => {
    answer = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(events.map(formatSseEvent).join(''));
    };
  };

  it('exits 1 with the budget message when the host answers 402 BUDGET_EXCEEDED before any event', async () => {
    answer = (response) => {
      response.writeHead(402, { 'content-type': 'application/json' });
      response.end(JSON.stringify(errorBody('BUDGET_EXCEEDED', BUDGET_TEXT)));
    };
    expect(await send()).toEqual({ code: 1, out: '', err: `openlegion: ${BUDGET_TEXT}\n` });
  });

  it('exits 1 on a BUDGET_EXCEEDED error event in the middle of a reply, after what was said', async () => {
    streams(
      { type: 'text_delta', text: 'Let me check' },
      { type: 'error', code: 'BUDGET_EXCEEDED', message: BUDGET_TEXT, retryable: false },
    );
    expect(await send()).toEqual({
      code: 1,
      out: 'Let me check\n',
      err: `openlegion: alpha: ${BUDGET_TEXT}\n`,
    });
  });

  it('exits 75 (try again later) on a retryable error event such as LLM_CALL_LIMIT', async () => {
    streams({
      type: 'error',
      code: 'LLM_CALL_LIMIT',
      message: 'LLM call failed: 429 too many calls',
      retryable: true,
    });
    expect((await send()).code).toBe(EXIT_TRY_AGAIN);
  });

  it('takes a code the catalogue does not have as AGENT_LLM_FAILED (retryable: 75)', async () => {
    streams({ type: 'error', code: 'MADE_UP', message: 'something odd', retryable: false });
    expect(await send()).toEqual({
      code: EXIT_TRY_AGAIN,
      out: '',
      err: 'openlegion: alpha: something odd\n',
    });
  });
});
