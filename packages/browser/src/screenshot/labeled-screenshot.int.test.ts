import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageServer, startPageServer } from '../../test/page-server.js';
import { LOOPBACK_ONLY_ARGS } from '../../test/refusing-proxy.js';
import { callTool } from '../../test/tool-harness.js';
import type { BrowserSession } from '../session/browser-session.js';
import { createBrowserSession } from '../session/create-browser-session.js';
import { createBrowserTools } from '../tools/create-browser-tools.js';
import { labeledScreenshot, type Mark } from './labeled-screenshot.js';

const page = `<title>Marks</title><style>body{margin:0;font:16px sans-serif}</style>
  <button style="position:absolute;left:40px;top:60px;width:120px;height:40px">Save</button>
  <a href="#x" style="position:absolute;left:300px;top:200px">Read more</a>
  <input aria-label="Search" style="position:absolute;left:500px;top:400px;width:200px">
  <iframe src="/inner" style="position:absolute;left:700px;top:100px;width:300px;height:150px;border:5px solid #ccc"></iframe>
  <button style="position:absolute;left:40px;top:3000px">Far below</button>`;
const inner = `<body style="margin:0"><button style="margin:30px 0 0 20px">Inside</button></body>`;

/** RGBA of one pixel of a PNG, read by drawing it on a canvas in the browser itself. */
async function pixel(viewer: Page, png: Buffer, x: number, y: number): Promise<number[]> {
  return viewer.evaluate(
    async ({ data, px, py }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${data}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      context?.drawImage(image, 0, 0);
      return [...(context?.getImageData(px, py, 1, 1).data ?? [])];
    },
    { data: png.toString('base64'), px: Math.round(x), py: Math.round(y) },
  );
}

describe('labeled screenshots', () => {
  let server: PageServer;
  let workspace: string;
  let session: BrowserSession;

  beforeAll(async () => {
    server = await startPageServer({ '/marks': page, '/inner': inner });
    workspace = await mkdtemp(path.join(tmpdir(), 'browser-marks-'));
    session = createBrowserSession({
      profileDir: path.join(workspace, '.profile'),
      proxy: null,
      extraArgs: LOOPBACK_ONLY_ARGS,
    });
  });

  afterAll(async () => {
    await session?.close();
    await server?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it('draws one numbered box per visible interactive element, on the element, numbered by its ref', async () => {
    const { marks, png, tabPage } = await session.run(async () => {
      const tab = await session.activeTab();
      await tab.page.goto(server.url('/marks'));
      await tab.page.frameLocator('iframe').locator('button').waitFor();
      return { ...(await labeledScreenshot(tab, session.refs)), tabPage: tab.page };
    });
    expect(marks.map((mark) => mark.name).sort()).toEqual(['Inside', 'Read more', 'Save', 'Search']);
    const viewer = await session.run(async () => (await session.openTab()).page);
    for (const mark of marks) {
      expect(mark.label).toBe(mark.ref.slice(1));
      const target = session.refs.resolve(mark.ref);
      const box = await tabPage.getByRef(target.ariaRef).boundingBox();
      expect(box).not.toBeNull();
      for (const key of ['x', 'y', 'width', 'height'] as const) {
        expect(Math.abs(mark.box[key] - (box?.[key] ?? Number.NaN))).toBeLessThanOrEqual(1);
      }
      // The box's left edge, half way down, is drawn in the mark colour (#ff00ff).
      const [red, green, blue] = await pixel(viewer, png, mark.box.x + 1, mark.box.y + mark.box.height / 2);
      expect([red, green, blue]).toEqual([255, 0, 255]);
    }
    const inside = marks.find((mark: Mark) => mark.name === 'Inside');
    // Page coordinates, not the iframe's: frame left 700 + border 5 + margin 20.
    expect(inside?.box.x).toBeCloseTo(725, 0);
    const clean = await session.run(() => tabPage.screenshot());
    const save = marks.find((mark) => mark.name === 'Save');
    expect(await pixel(viewer, clean, (save?.box.x ?? 0) + 1, (save?.box.y ?? 0) + 20)).not.toEqual([
      255, 0, 255, 255,
    ]);
  });

  it('saves the labeled screenshot in the workspace and returns it as image content', async () => {
    const tools = createBrowserTools({ session });
    await callTool(tools, 'browser_tabs', { action: 'switch', tab: 1 }, workspace);
    const { result, text } = await callTool(
      tools,
      'browser_screenshot',
      { labeled: true, path: 'shots/a.png' },
      workspace,
    );
    expect(text).toMatch(/saved shots\/a\.png/);
    expect(text).toMatch(/^\d+: button "Save"$/m);
    const image = result.content.find((part) => part.type === 'image');
    expect(image?.type === 'image' && image.mimeType).toBe('image/png');
    const saved = await readFile(path.join(workspace, 'shots', 'a.png'));
    expect(image?.type === 'image' && image.data).toBe(saved.toString('base64'));
  });
});
