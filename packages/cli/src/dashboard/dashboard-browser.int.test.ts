import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMeshConfig } from '@openlegion/host/config';
import { createMeshHost, type MeshHost } from '@openlegion/host/mesh';
import { findFreePorts } from '@openlegion/infra/http';
import { createLogger } from '@openlegion/infra/log';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessRuntime } from '../../test/in-process-runtime.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** Screenshots for a person to look at (gitignored). */
const SHOTS = path.join(ROOT, 'test-results', 'dashboard');
const BUILT = path.join(ROOT, 'packages', 'host', 'dist', 'ui', 'index.html');
/** Flags that work as root and in containers (docs: ENVIRONMENT; the browser package uses the same). */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const WORKFLOW = `name: review-note
description: Write a note, wait for the operator, then file it.
steps:
  - id: draft
    agent: writer
    task: Draft a one-line note.
  - id: approve
    depends_on: draft
    requires_approval: true
  - id: file
    agent: writer
    depends_on: approve
    task: File the note.
`;

/**
 * The dashboard in real Chromium against a running mesh (process runtime: the real agent in this
 * process, the testkit's fake LLM): sign in, chat and see the stream, approve a waiting workflow
 * step, open a trace waterfall, see the cost chart drawn; axe-core finds no serious violation; a
 * wrong token and a cross-origin POST are refused.
 */
describe('the dashboard in a browser, against a running mesh', () => {
  let dir: string;
  let llm: FakeLlm;
  let host: MeshHost;
  let browser: Browser;
  let page: Page;
  let base: string;
  let token: string;
  let evil: Server;

  const api = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    if (!existsSync(BUILT)) throw new Error(`the dashboard is not built (${BUILT}): run pnpm build first`);
    await mkdir(SHOTS, { recursive: true });
    dir = await mkdtemp(path.join(tmpdir(), 'dashboard-browser-'));
    llm = await startFakeLlm({
      script: {
        rules: [
          {
            match: { role: 'user', last_message: 'Say hello' },
            reply: { tool_calls: [{ name: 'subscribe', arguments: { pattern: 'news.*' } }] },
          },
        ],
        default: { chunks: ['Hello', ' from', ' the', ' writer.'], chunk_delay_ms: 30 },
      },
    });
    const [port, egressPort] = await findFreePorts('127.0.0.1', 2);
    base = `http://127.0.0.1:${port}`;
    await mkdir(path.join(dir, 'workflows'));
    await writeFile(path.join(dir, 'workflows', 'review-note.yaml'), WORKFLOW);
    await writeFile(
      path.join(dir, 'mesh.yaml'),
      `mesh: { name: dash, port: ${port}, egress_port: ${egressPort}, data_dir: data }
runtime: { kind: process }
llm:
  default_model: up/gpt-test
  prices: { up/gpt-test: { input: 3, output: 15, max_output_tokens: 1000 } }
  providers: { up: { kind: openai-compatible, base_url: "http://127.0.0.1:9/v1" } }
agents:
  writer: { budget: { daily_usd: 1 }, permissions: { pubsub: { subscribe: ['news.*'] } } }
  editor: {}
workflows: workflows
`,
    );
    host = createMeshHost({
      loaded: await loadMeshConfig(path.join(dir, 'mesh.yaml')),
      runtime: 'process',
      logger: createLogger({ level: 'silent' }),
      env: {},
      agentEntry: '/unused',
      agentRuntime: new InProcessRuntime(),
      baseUrlOverrides: { up: llm.url },
    });
    await host.start();
    token = (await readFile(path.join(dir, 'data', 'operator-token'), 'utf8')).trim();
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    page = await (await browser.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
    // A page of another origin on the same machine (same site: the cookie would go along).
    evil = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => evil?.close(resolve));
    await host?.stop();
    await llm?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a wrong token at sign-in, saying why', async () => {
    await page.goto(`${base}/ui`);
    await page.getByLabel('Operator token').fill('not-the-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('AUTH_INVALID');
    expect(await page.context().cookies()).toEqual([]);
  });

  it('signs in and lists the fleet', async () => {
    await page.getByLabel('Operator token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('tr[data-agent="writer"]').waitFor();
    expect(await page.locator('tr[data-agent]').count()).toBe(2);
    const [cookie] = await page.context().cookies();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false });
    // The log tail (this runtime keeps no output: the agents run inside the test's process).
    await page.getByRole('button', { name: 'Logs writer' }).click();
    await expect.poll(() => page.getByTestId('logs').textContent()).toBe('No output yet.');
    await shot('fleet');
  });

  it('chats with an agent and shows the answer as it streams', async () => {
    await page.goto(`${base}/ui#/chat/writer`);
    await page.getByLabel('Message').fill('Say hello');
    await page.getByRole('button', { name: 'Send' }).click();
    const transcript = page.getByTestId('transcript');
    await expect
      .poll(() => transcript.textContent(), { timeout: 20_000 })
      .toContain('Hello from the writer.');
    // The tool the model called shows as its own line, before the answer.
    expect(await transcript.locator('.line-tool').first().textContent()).toBe(
      '⚙ subscribe {"pattern":"news.*"}',
    );
    // The turn is the dashboard's in the lane, not the CLI's.
    const lanes = (await api('GET', '/api/lanes?agent=writer')) as {
      items: { message: string; source: string }[];
    };
    expect(lanes.items.find((item) => item.message === 'Say hello')?.source).toBe('dashboard');
    await shot('chat');
  });

  it('approves a workflow step that waits, and the run goes on', async () => {
    const started = (await api('POST', '/api/workflows/review-note/runs', {})) as { run: { id: string } };
    const run = started.run.id;
    await page.goto(`${base}/ui#/workflows/${run}`);
    const approve = page.getByRole('button', { name: 'Approve approve' });
    await approve.waitFor({ timeout: 30_000 });
    await shot('workflow-waiting');
    await approve.click();
    await expect
      .poll(
        async () =>
          ((await api('GET', `/api/workflows/runs/${run}`)) as { run: { state: string } }).run.state,
        {
          timeout: 30_000,
        },
      )
      .toBe('succeeded');
    await page
      .locator('li[data-step="file"] .badge', { hasText: /succeeded|done/ })
      .waitFor({ timeout: 10_000 });
    await shot('workflow');
  });

  it("opens a trace's waterfall, and says so for a trace that does not exist", async () => {
    const { traces } = (await api('GET', '/api/traces')) as { traces: { trace_id: string; hops: number }[] };
    const trace = traces.find((entry) => entry.hops > 2);
    if (!trace) throw new Error('no trace with hops');
    await page.goto(`${base}/ui#/traces/${trace.trace_id}`);
    await page.locator('.waterfall .hop').first().waitFor();
    expect(await page.locator('.waterfall .hop').count()).toBe(trace.hops);
    await shot('trace');
    await page.goto(`${base}/ui#/traces/no-such-trace`);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('NOT_FOUND: no trace "no-such-trace" (traces are kept 7 days)');
  });

  it('draws the cost chart', async () => {
    await page.goto(`${base}/ui#/costs`);
    const canvas = page.locator('.chart canvas');
    await canvas.waitFor();
    const box = await canvas.boundingBox();
    expect(box?.width).toBeGreaterThan(200);
    expect(await page.locator('.chart .u-legend').textContent()).toContain('writer · up/gpt-test');
    await shot('costs');
  });

  it('has no serious accessibility violation (axe-core) on each page, at phone width too', async () => {
    const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const serious: string[] = [];
    for (const [route, width] of [
      ['fleet', 1200],
      ['chat/writer', 1200],
      ['costs', 1200],
      ['traces', 1200],
      ['workflows', 1200],
      ['blackboard', 1200],
      ['cron', 1200],
      ['memory', 1200],
      ['vault', 1200],
      ['models', 1200],
      ['fleet', 390],
      ['chat/writer', 390],
    ] as const) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${base}/ui#/${route}`);
      await page.locator('main section').first().waitFor();
      await page.waitForLoadState('networkidle');
      // Evaluated through the DevTools protocol, which the page's CSP does not govern.
      await page.evaluate(axeSource);
      const violations = await page.evaluate(async () => {
        const axe = (
          globalThis as unknown as {
            axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
          }
        ).axe;
        return (await axe.run()).violations.map(({ id, impact, nodes }) => ({
          id,
          impact,
          nodes: nodes.length,
        }));
      });
      for (const violation of violations)
        if (violation.impact === 'serious' || violation.impact === 'critical')
          serious.push(`${route}@${width}: ${violation.id} (${violation.impact}, ${violation.nodes} nodes)`);
    }
    await shot('fleet-phone');
    await page.setViewportSize({ width: 1200, height: 800 });
    expect(serious).toEqual([]);
  });

  it('refuses a cross-origin POST that carries the session cookie', async () => {
    const before = ((await api('GET', '/api/lanes?limit=100')) as { items: unknown[] }).items.length;
    const elsewhere = await page.context().newPage();
    await elsewhere.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    const status = await elsewhere.evaluate(async (target) => {
      // A simple (preflight-free) request, so the browser sends it with the cookie; the host refuses.
      const response = await fetch(`${target}/api/agents/writer/chat`, {
        method: 'POST',
        credentials: 'include',
        mode: 'no-cors',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ message: 'from elsewhere' }),
      });
      return response.type;
    }, base);
    expect(status).toBe('opaque');
    await elsewhere.close();
    const after = ((await api('GET', '/api/lanes?limit=100')) as { items: unknown[] }).items.length;
    expect(after).toBe(before);
    // What the host answered it, asked the same way with the browser's cookie.
    const cookies = await page.context().cookies();
    const answer = await fetch(`${base}/api/agents/writer/chat`, {
      method: 'POST',
      headers: {
        cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '),
        origin: `http://127.0.0.1:${(evil.address() as AddressInfo).port}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ message: 'from elsewhere' }),
    });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
      'DASHBOARD_ORIGIN_REFUSED',
    );
  });
});
