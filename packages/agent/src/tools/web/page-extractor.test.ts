import { describe, expect, it } from 'vitest';
import { extractPage } from './page-extractor.js';

const paragraph = (n: number) =>
  `<p>Paragraph ${n} of the story tells, at some length and with care, how the river changed course after the storm and what the town did next.</p>`;
const articlePage = `<!doctype html><html><head><title>River story | Daily</title></head><body>
  <nav><a href="/">Home</a> <a href="/sports">Sports</a> <a href="/weather">Weather</a></nav>
  <article><h1>River story</h1><p class="byline">By Ada Writer</p>
    ${[1, 2, 3, 4, 5, 6].map(paragraph).join('\n')}
    <p>See <a href="/maps/river">the map</a> and <img src="img/flood.png" alt="flood"></p>
    <table><tr><th>Year</th><th>Level</th></tr><tr><td>2024</td><td>5 m</td></tr></table>
  </article>
  <footer>Copyright Daily. <a href="/privacy">Privacy</a></footer>
  <script>window.track = 'analytics-token';</script>
</body></html>`;

describe('extractPage', () => {
  it('finds the article and leaves navigation, footer and scripts out', () => {
    const page = extractPage(articlePage, 'https://news.example/2024/river');
    const text = page.text();
    expect(page.article).toBe(true);
    expect(text).toContain('Paragraph 6 of the story');
    expect(text).not.toMatch(/Sports|Privacy|analytics-token/);
  });

  it('keeps paragraphs apart in text and table cells apart', () => {
    const text = extractPage(articlePage, 'https://news.example/2024/river').text();
    expect(text).toMatch(/next\.\n\nParagraph 2/);
    expect(text).toMatch(/Year\tLevel/);
  });

  it('resolves links and images against the page address in markdown, with a GFM table', () => {
    const markdown = extractPage(articlePage, 'https://news.example/2024/river').markdown();
    expect(markdown).toContain('[the map](https://news.example/maps/river)');
    expect(markdown).toContain('](https://news.example/2024/img/flood.png)');
    expect(markdown).toMatch(/\| Year \| Level \|/);
  });

  it('falls back to the cleaned body, links resolved, when no article is found', () => {
    const html = `<html><head><title>Gallery</title></head><body><img src="photos/1.png" alt="one"><script>x()</script></body></html>`;
    const page = extractPage(html, 'https://photos.example/album/');
    expect(page.article).toBe(false);
    expect(page.title).toBe('Gallery');
    expect(page.markdown()).toBe('![one](https://photos.example/album/photos/1.png)');
  });

  it('keeps the content of a short page without an article element', () => {
    const html = `<html><head><title>Status</title></head><body><div>All systems normal.</div><script>x()</script></body></html>`;
    const page = extractPage(html, 'https://status.example/');
    expect(page.title).toBe('Status');
    expect(page.text()).toBe('All systems normal.');
  });

  it('returns the cleaned article HTML for the html format', () => {
    const page = extractPage(articlePage, 'https://news.example/2024/river');
    expect(page.html).toContain('<p>');
    expect(page.html).not.toContain('<script');
  });
});
