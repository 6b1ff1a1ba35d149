import { parseTelegramHtml } from '@openlegion/testkit';
import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml } from './markdown-to-html.js';

describe('markdownToTelegramHtml', () => {
  it('escapes <, > and & in text', () => {
    expect(markdownToTelegramHtml('**x** < y & z > w')).toBe('<b>x</b> &lt; y &amp; z &gt; w');
  });

  it('escapes code spans and code blocks and keeps the language of a fenced block', () => {
    expect(markdownToTelegramHtml('a `<b> & c` d')).toBe('a <code>&lt;b&gt; &amp; c</code> d');
    expect(markdownToTelegramHtml('```js\nif (a < b && c > d) {}\n```')).toBe(
      '<pre><code class="language-js">if (a &lt; b &amp;&amp; c &gt; d) {}</code></pre>',
    );
  });

  it('turns raw HTML from the model into visible text, never markup', () => {
    expect(markdownToTelegramHtml('hi <script>alert(1)</script> <b>x</b>')).toBe(
      'hi &lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;x&lt;/b&gt;',
    );
  });

  it('renders headings, lists, quotes, tables and links in the subset Telegram knows', () => {
    expect(markdownToTelegramHtml('# Title\n\n- one\n  - nested\n- two *it*\n\n1. a\n2. b')).toBe(
      '<b>Title</b>\n\n• one\n  • nested\n• two <i>it</i>\n\n1. a\n2. b',
    );
    expect(markdownToTelegramHtml('> hi\n> there')).toBe('<blockquote>hi\nthere</blockquote>');
    expect(markdownToTelegramHtml('|a|b|\n|-|-|\n|1|<2|')).toBe('<pre>a | b\n1 | &lt;2</pre>');
    expect(markdownToTelegramHtml('[doc](https://x.test/?a=1&b="2") ![i](javascript:evil)')).toBe(
      '<a href="https://x.test/?a=1&amp;b=&quot;2&quot;">doc</a> i',
    );
  });

  it('produces HTML that Telegram accepts for every sample', () => {
    const samples = [
      'plain & simple <3',
      '**bold _nested_ ~~gone~~**',
      '```\nunclosed < code & more',
      '1 < 2 > 0 &amp; &copy; &#60;',
      '* [ ] task\n* [x] done',
      '---\n\n`a`b`c`',
    ];
    for (const sample of samples) {
      const parsed = parseTelegramHtml(markdownToTelegramHtml(sample));
      expect(parsed, sample).toMatchObject({ ok: true });
    }
  });
});
