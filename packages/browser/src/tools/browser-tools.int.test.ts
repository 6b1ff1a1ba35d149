import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeClock } from '@openlegion/infra/clock';
import type { AgentTool } from '@openlegion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { neverAnswer, type PageServer, startPageServer } from '../../test/page-server.js';
import { LOOPBACK_ONLY_ARGS, startRefusingProxy } from '../../test/refusing-proxy.js';
import { callTool, refOf } from '../../test/tool-harness.js';
import { createPlaywrightLauncher, type LaunchedBrowser } from '../session/browser-launcher.js';
import { BrowserSession } from '../session/browser-session.js';
import { createBrowserTools } from './create-browser-tools.js';

const IDLE_MS = 60_000;

const pages = {
  '/login': `<title>Login</title><h1>Sign in</h1>
    <form action="/welcome"><label>Username <input name="user"></label>
    <label>Password <input name="pass" type="password"></label><button>Sign in</button></form>`,
  '/frame': `<title>Frame</title><h1>Outer</h1><iframe src="/inner" width="400" height="200"></iframe>`,
  '/inner': `<button onclick="document.getElementById('out').textContent='inner clicked'">Inner button</button>
    <p id="out">not yet</p>`,
  '/tabs': `<title>Tabs</title><a href="/other" target="_blank">Open other</a>`,
  '/other': `<title>Other</title><h1>The other page</h1>`,
  '/files': `<title>Files</title><input type="file" aria-label="Attachment" id="file">
    <p id="shown">none</p><a href="/report.csv" download>Get report</a>
    <script>document.getElementById('file').addEventListener('change', async (event) => {
      const file = event.target.files[0];
      document.getElementById('shown').textContent = file.name + ': ' + (await file.text());
    });</script>`,
  '/dynamic': `<title>Dynamic</title><button onclick="const b=document.createElement('button');
    b.textContent='Close panel';document.body.append(b)">Open panel</button>
    <button onclick="alert('Saved!')">Save</button>`,
  '/form': `<title>Form</title><select aria-label="Colour"><option value="r">Red</option><option value="g">Green</option></select>
    <label><input type="checkbox"> Subscribe</label><p id="state"></p>
    <script>document.addEventListener('change', () => { document.getElementById('state').textContent =
      document.querySelector('select').value + ' ' + document.querySelector('input').checked; });</script>`,
  '/widgets': `<title>Widgets</title><input aria-label="Keys" onkeydown="document.getElementById('log').textContent='key '+event.key">
    <p id="log">none</p>
    <div id="menu" onmouseenter="if(!document.getElementById('item')){const a=document.createElement('a');a.id='item';a.href='#i';a.textContent='Menu item';this.append(a)}">Hover me</div>
    <div draggable="true" id="card" ondragstart="event.dataTransfer.setData('text','card')">Card</div>
    <div id="bin" style="width:200px;height:80px;border:1px solid" aria-label="Bin" role="region"
      ondragover="event.preventDefault()" ondrop="event.preventDefault();this.textContent='dropped '+event.dataTransfer.getData('text')">Bin</div>
    <button onclick="setTimeout(()=>{const p=document.createElement('p');p.textContent='Ready now';document.body.append(p)},300)">Later</button>
    <div style="height:5000px"></div><p id="end">The end</p>`,
  '/huge': `<title>Huge</title>${Array.from({ length: 4_000 }, (_, i) => `<button>Button number ${i}</button>`).join('')}`,
  '/report.csv': (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, {
      'content-type': 'text/csv',
      'content-disposition': 'attachment; filename="report.csv"',
    });
    res.end('a,b\n1,2\n');
  },
  '/never': neverAnswer,
  '/welcome': (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const user = new URL(req.url ?? '/', 'http://x').searchParams.get('user') ?? '';
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<title>Welcome</title><h1>Welcome, ${user}</h1>`);
  },
};

describe('browser tools (real Chromium on loopback)', () => {
  let server: PageServer;
  let proxy: Awaited<ReturnType<typeof startRefusingProxy>>;
  let workspace: string;
  let session: BrowserSession;
  let tools: AgentTool[];
  let launched: LaunchedBrowser | undefined;
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const call = (name: string, input: unknown) => callTool(tools, name, input, workspace);

  beforeAll(async () => {
    server = await startPageServer(pages);
    proxy = await startRefusingProxy();
    workspace = await mkdtemp(path.join(tmpdir(), 'browser-tools-'));
    const proxySettings = { server: proxy.server, bypass: '127.0.0.1' };
    const launcher = createPlaywrightLauncher({
      tier: 'basic',
      profileDir: path.join(workspace, '.profile'),
      proxy: proxySettings,
      extraArgs: LOOPBACK_ONLY_ARGS,
    });
    session = new BrowserSession({
      launcher: async () => {
        launched = await launcher();
        return launched;
      },
      clock,
      idleTimeoutMs: IDLE_MS,
      navigationTimeoutMs: 2_000,
      actionTimeoutMs: 2_000,
      proxied: true,
      proxy: proxySettings,
    });
    tools = createBrowserTools({ session });
  });

  afterAll(async () => {
    await session?.close();
    await server?.close();
    await proxy?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it('starts no browser until the first browser tool runs', () => {
    expect(session.isRunning).toBe(false);
    expect(tools.every((tool) => tool.group === 'browser')).toBe(true);
  });

  it('logs in through a form by refs from a snapshot', async () => {
    await call('browser_navigate', { url: server.url('/login') });
    const { text: snapshot } = await call('browser_snapshot', {});
    await call('browser_type', { ref: refOf(snapshot, /textbox "Username"/), text: 'ada' });
    await call('browser_type', { ref: refOf(snapshot, /textbox "Password"/), text: 'secret' });
    const { text: clicked } = await call('browser_click', { ref: refOf(snapshot, /button "Sign in"/) });
    expect(clicked).toContain('/welcome?user=ada');
    expect(clicked).toContain('"Welcome"');
    expect((await call('browser_get_text', {})).text).toBe('Welcome, ada');
  });

  it('says a ref from before a navigation is stale, in the words of the issue', async () => {
    await call('browser_navigate', { url: server.url('/login') });
    const ref = refOf((await call('browser_snapshot', {})).text, /button "Sign in"/);
    await call('browser_navigate', { url: server.url('/other') });
    const { text, result } = await call('browser_click', { ref });
    expect(result.isError).toBe(true);
    expect(text).toBe(`BROWSER_STALE_REF: ref ${ref} is from an older snapshot — take a new snapshot`);
  });

  it('refuses a ref no snapshot gave out, and a selector that matches nothing', async () => {
    const unknown = await call('browser_click', { ref: 'e999999' });
    expect(unknown.result.isError).toBe(true);
    expect(unknown.text).toMatch(/^BROWSER_REF_UNKNOWN: ref e999999 is unknown/);
    const missing = await call('browser_click', { selector: '#nope' });
    expect(missing.text).toMatch(/^BROWSER_REF_UNKNOWN: selector #nope matches nothing/);
  });

  it('gives refs inside an iframe and acts on them', async () => {
    await call('browser_navigate', { url: server.url('/frame') });
    const { text: snapshot } = await call('browser_snapshot', {});
    expect(snapshot).toMatch(/iframe \[e\d+\]\n\s+- button "Inner button" \[e\d+\]/);
    await call('browser_click', { ref: refOf(snapshot, /button "Inner button"/) });
    expect((await call('browser_snapshot', { frame: refOf(snapshot, /iframe/) })).text).toContain(
      'inner clicked',
    );
  });

  it('narrows a snapshot to a root or a frame, by ref or CSS selector, and to a depth', async () => {
    await call('browser_navigate', { url: server.url('/frame') });
    const { text: whole } = await call('browser_snapshot', {});
    const byFrameSelector = (await call('browser_snapshot', { frame: 'iframe' })).text;
    expect(byFrameSelector).toContain(`button "Inner button" [${refOf(whole, /button "Inner button"/)}]`);
    expect(byFrameSelector).not.toContain('heading "Outer"');
    const byRoot = (await call('browser_snapshot', { root: refOf(whole, /heading "Outer"/) })).text;
    expect(byRoot.split('\n').slice(1)).toEqual([
      `- heading "Outer" [level=1] [${refOf(whole, /heading "Outer"/)}]`,
    ]);
    const bySelector = (await call('browser_snapshot', { root: 'h1' })).text;
    expect(bySelector).toContain('heading "Outer"');
    const shallow = (await call('browser_snapshot', { max_depth: 1 })).text;
    expect(shallow).toMatch(/- iframe \[e\d+\]\n {2}- … \d+ elements deeper than max_depth 1/);
  });

  it('follows a link that opens a new tab and makes that tab active', async () => {
    await call('browser_navigate', { url: server.url('/tabs') });
    const { text: snapshot } = await call('browser_snapshot', {});
    const { text } = await call('browser_click', { ref: refOf(snapshot, /link "Open other"/) });
    expect(text).toMatch(/opened new tab \d+/);
    expect(text).toContain('/other');
    expect((await call('browser_snapshot', {})).text).toContain('heading "The other page"');
    const { text: list } = await call('browser_tabs', { action: 'list' });
    expect(list.split('\n')).toHaveLength(2);
    const other = Number(/tab (\d+) \(active\)/.exec(list)?.[1]);
    await call('browser_tabs', { action: 'close', tab: other });
    expect((await call('browser_tabs', { action: 'list' })).text.split('\n')).toHaveLength(1);
  });

  it('uploads a workspace file and downloads a file into the workspace', async () => {
    await writeFile(path.join(workspace, 'notes.txt'), 'hello upload');
    await call('browser_navigate', { url: server.url('/files') });
    const { text: snapshot } = await call('browser_snapshot', {});
    await call('browser_upload', { ref: refOf(snapshot, /Attachment/), paths: ['notes.txt'] });
    expect((await call('browser_get_text', { selector: '#shown' })).text).toBe('notes.txt: hello upload');
    const { text } = await call('browser_download', { ref: refOf(snapshot, /link "Get report"/) });
    expect(text).toMatch(/downloaded downloads\/report\.csv \(8 bytes/);
    expect(await readFile(path.join(workspace, 'downloads', 'report.csv'), 'utf8')).toBe('a,b\n1,2\n');
    const direct = await call('browser_navigate', { url: server.url('/report.csv') });
    expect(direct.text).toMatch(
      /report\.csv is a file, not a page\ndownloaded downloads\/report \(2\)\.csv \(8 bytes/,
    );
    const outside = await call('browser_upload', {
      ref: refOf(snapshot, /Attachment/),
      paths: ['../etc/passwd'],
    });
    expect(outside.text).toMatch(/^BROWSER_PATH_INVALID: \.\.\/etc\/passwd is outside the workspace/);
  });

  it('reports the dialog and the new elements a click caused, and marks them [new]', async () => {
    await call('browser_navigate', { url: server.url('/dynamic') });
    const { text: snapshot } = await call('browser_snapshot', {});
    const opened = await call('browser_click', { ref: refOf(snapshot, /button "Open panel"/) });
    expect(opened.text).toMatch(/1 new elements \(1 to act on\): button "Close panel" \[e\d+\]/);
    const saved = await call('browser_click', { ref: refOf(snapshot, /button "Save"/) });
    expect(saved.text).toContain('dialog (alert) "Saved!": accepted');
    const { text: again } = await call('browser_snapshot', {});
    expect(again).toMatch(/button "Close panel" \[e\d+\] \[new\]/);
    expect(again).not.toMatch(/button "Save" \[e\d+\] \[new\]/);
  });

  it('selects an option and checks a box by ref', async () => {
    await call('browser_navigate', { url: server.url('/form') });
    const { text: snapshot } = await call('browser_snapshot', {});
    await call('browser_select', { ref: refOf(snapshot, /combobox "Colour"/), values: ['Green'] });
    await call('browser_check', { ref: refOf(snapshot, /checkbox "Subscribe"/) });
    expect((await call('browser_get_text', { selector: '#state' })).text).toBe('g true');
  });

  it('presses keys, hovers, drags, waits for text and scrolls, by ref', async () => {
    await call('browser_navigate', { url: server.url('/widgets') });
    const { text: snapshot } = await call('browser_snapshot', {});
    await call('browser_press', { ref: refOf(snapshot, /textbox "Keys"/), key: 'ArrowDown' });
    expect((await call('browser_get_text', { selector: '#log' })).text).toBe('key ArrowDown');
    const hovered = await call('browser_hover', { selector: '#menu' });
    expect(hovered.text).toMatch(/1 new elements \(1 to act on\): link "Menu item" \[e\d+\]/);
    await call('browser_drag', { from_selector: '#card', to_ref: refOf(snapshot, /region "Bin"/) });
    expect((await call('browser_get_text', { selector: '#bin' })).text).toBe('dropped card');
    await call('browser_click', { ref: refOf(snapshot, /button "Later"/) });
    const waited = await call('browser_wait', { text: 'Ready now', timeout_ms: 5_000 });
    expect(waited.result.isError).toBeUndefined();
    const never = await call('browser_wait', { text: 'Never there', timeout_ms: 300 });
    expect(never.text).toBe('BROWSER_TIMEOUT: could not see "Never there" within 300 ms');
    await call('browser_scroll', { selector: '#end' });
    const scrolled = await session.run(async () =>
      (await session.activeTab()).page.evaluate(() => window.scrollY),
    );
    expect(scrolled).toBeGreaterThan(4_000);
  });

  it('says which element an action failed on and why', async () => {
    await call('browser_navigate', { url: server.url('/login') });
    const { text: snapshot } = await call('browser_snapshot', {});
    const heading = refOf(snapshot, /heading "Sign in"/);
    const { text, result } = await call('browser_type', { ref: heading, text: 'x' });
    expect(result.isError).toBe(true);
    expect(text).toMatch(
      new RegExp(
        `^BROWSER_ACTION_FAILED: could not type into ${heading} \\(heading "Sign in"\\): Element is not an <input>`,
      ),
    );
  });

  it('goes back and forward, and saves the page as a PDF in the workspace', async () => {
    await call('browser_navigate', { url: server.url('/login') });
    await call('browser_navigate', { url: server.url('/other') });
    expect((await call('browser_history', { go: 'back' })).text).toMatch(
      /^at "Login" .*\/login \(HTTP 200\)/,
    );
    expect((await call('browser_history', { go: 'forward' })).text).toMatch(/^at "Other" /);
    const { text } = await call('browser_pdf', { path: 'pages/other.pdf' });
    expect(text).toMatch(/^saved pages\/other\.pdf/);
    expect((await readFile(path.join(workspace, 'pages', 'other.pdf'))).subarray(0, 5).toString()).toBe(
      '%PDF-',
    );
  });

  it('offers browser_evaluate only when the agent is allowed it', async () => {
    expect(tools.some((tool) => tool.name === 'browser_evaluate')).toBe(false);
    const allowed = createBrowserTools({ session, evaluate: true });
    await callTool(allowed, 'browser_navigate', { url: server.url('/other') }, workspace);
    expect(
      (await callTool(allowed, 'browser_evaluate', { expression: 'document.title' }, workspace)).text,
    ).toBe('"Other"');
  });

  it('names the URL the egress proxy refused, over http and https', async () => {
    const plain = await call('browser_navigate', { url: 'http://refused.example/' });
    expect(plain.result.isError).toBe(true);
    expect(plain.text).toMatch(
      /^BROWSER_EGRESS_REFUSED: http:\/\/refused\.example\/ is not reachable: the egress proxy refused it \(host not in allowlist\)/,
    );
    const tls = await call('browser_navigate', { url: 'https://refused.example/' });
    // Chromium only says the tunnel failed; the tool asks the proxy why.
    expect(tls.text).toMatch(
      /^BROWSER_EGRESS_REFUSED: https:\/\/refused\.example\/ is not reachable: the egress proxy refused it \(host not in allowlist\)/,
    );
    expect(proxy.seen).toContain('CONNECT refused.example:443');
  });

  it('times out a page that never loads and names its URL', async () => {
    const { text, result } = await call('browser_navigate', { url: server.url('/never') });
    expect(result.isError).toBe(true);
    expect(text).toBe(`BROWSER_TIMEOUT: ${server.url('/never')} did not load within 2000 ms`);
  });

  it('caps the snapshot of a huge page with an honest note', async () => {
    await call('browser_navigate', { url: server.url('/huge') });
    const { text } = await call('browser_snapshot', { max_chars: 10_000 });
    expect(text.length).toBeLessThanOrEqual(10_000);
    expect(text).toMatch(/\[truncated: \d+ of 4000 lines shown \(\d+ of \d+ chars\), \d+ refs not shown/);
    const interactive = await call('browser_snapshot', {
      interactive_only: true,
      root: 'body',
      max_chars: 400_000,
    });
    expect(interactive.text.match(/button "Button number \d+" \[e\d+\]/g)).toHaveLength(4_000);
  });

  it('relaunches a crashed browser on the next call and says so', async () => {
    await call('browser_navigate', { url: server.url('/other') });
    const cdp = await launched?.context.browser()?.newBrowserCDPSession();
    await cdp?.send('Browser.crash').catch(() => undefined);
    await expect.poll(() => session.isRunning).toBe(false);
    const { text } = await call('browser_snapshot', {});
    expect(text).toMatch(
      /^The browser had crashed \(or was closed from outside\) and was relaunched; reopened tab \d+ http:\/\/127\.0\.0\.1:\d+\/other/,
    );
    expect(text).toContain('heading "The other page"');
  });

  it('reopens a tab whose page crashed on the next call and says so', async () => {
    await call('browser_navigate', { url: server.url('/login') });
    const page = await session.run(async () => (await session.activeTab()).page);
    const cdp = await page.context().newCDPSession(page);
    const crashed = new Promise((resolve) => page.once('crash', resolve));
    // Page.crash never answers: the renderer is gone before it could.
    void cdp.send('Page.crash').catch(() => undefined);
    await crashed;
    const { text } = await call('browser_snapshot', {});
    expect(text).toMatch(/^Tab \d+ had crashed; reopened http:\/\/127\.0\.0\.1:\d+\/login as tab \d+\./);
    expect(text).toContain('button "Sign in"');
  });

  it('closes the browser after the idle timeout and reopens the page on the next call', async () => {
    await call('browser_navigate', { url: server.url('/other') });
    await clock.advance(IDLE_MS);
    await session.settled();
    expect(session.isRunning).toBe(false);
    const { text } = await call('browser_get_text', {});
    expect(text).toMatch(
      /^The browser had been closed after being idle and was started again; reopened tab \d+/,
    );
    expect(text).toContain('The other page');
  });
});
