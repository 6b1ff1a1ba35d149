import fs from 'node:fs';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { RefRegistry } from './dist/snapshot/ref-registry.js';
import { takeSnapshot } from './dist/snapshot/take-snapshot.js';

const dir = '/work/shared/data/web-pages';
const server = http
  .createServer((req, res) => {
    const p = dir + decodeURIComponent(req.url.split('?')[0]);
    if (p.endsWith('/source.html') && fs.existsSync(p)) {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(fs.readFileSync(p));
    } else {
      res.statusCode = 404;
      res.end();
    }
  })
  .listen(0, '127.0.0.1');
await new Promise((r) => server.on('listening', r));
const port = server.address().port;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const ctx = await browser.newContext();
await ctx.route('**/*', (r) => {
  const u = new URL(r.request().url());
  u.hostname === '127.0.0.1' ? r.continue() : r.abort('blockedbyclient');
});
const page = await ctx.newPage();
const reg = new RefRegistry();
const ratios = [];
for (const site of fs.readdirSync(dir)) {
  await page.goto(`http://127.0.0.1:${port}/${site}/source.html`, { waitUntil: 'domcontentloaded' });
  let t = Date.now();
  const yaml = await page.ariaSnapshot({ mode: 'ai' });
  const t1 = Date.now() - t;
  t = Date.now();
  const snap = await takeSnapshot({ id: 1, page }, reg, {
    compact: true,
    interactiveOnly: false,
    maxChars: 1e9,
    urls: false,
  });
  const t2 = Date.now() - t;
  const interactiveYaml = (
    yaml.match(
      /^\s*- (button|link|textbox|searchbox|checkbox|radio|combobox|listbox|menuitem|menuitemcheckbox|menuitemradio|option|tab|switch|slider|spinbutton|treeitem)\b[^\n]*\[ref=/gm,
    ) || []
  ).length;
  ratios.push(snap.text.length / yaml.length);
  console.log(
    site.padEnd(20),
    yaml.length,
    snap.text.length,
    (snap.text.length / yaml.length).toFixed(2),
    t1,
    t2,
    interactiveYaml,
  );
  fs.writeFileSync(`/tmp/bx/${site}.ours.txt`, snap.text);
  fs.writeFileSync(`/tmp/bx/${site}.yaml`, yaml);
}
ratios.sort();
console.log('median', ratios[10]);
await browser.close();
server.close();
