import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from './markdown-to-mrkdwn.js';

describe('markdownToMrkdwn', () => {
  it('turns Markdown emphasis, links and headings into Slack mrkdwn', () => {
    expect(markdownToMrkdwn('# Plan\n**bold** and *italic* and ~~gone~~, see [docs](https://x.dev/a)')).toBe(
      '*Plan*\n*bold* and _italic_ and ~gone~, see <https://x.dev/a|docs>',
    );
  });

  it('escapes Slack control characters outside code and keeps code verbatim', () => {
    expect(markdownToMrkdwn('a < b & c\n```\nif (a < b) {}\n```\n`x<y`')).toBe(
      'a &lt; b &amp; c\n```\nif (a < b) {}\n```\n`x<y`',
    );
  });

  it('drops Markdown backslash escapes and makes list dashes bullets', () => {
    expect(markdownToMrkdwn('- one\\.\n- two \\(2\\)')).toBe('• one.\n• two (2)');
  });
});
