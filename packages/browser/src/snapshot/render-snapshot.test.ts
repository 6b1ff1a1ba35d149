import { describe, expect, it } from 'vitest';
import type { AriaNode } from './aria-node.js';
import { type RenderOptions, renderSnapshot } from './render-snapshot.js';
import { capLines } from './take-snapshot.js';

const node = (role: string, fields: Partial<AriaNode> = {}): AriaNode => ({
  role,
  name: '',
  clickable: false,
  props: {},
  children: [],
  ...fields,
});

const form = [
  node('generic', {
    ref: 'e1',
    children: [
      node('heading', { name: 'Sign in', ref: 'e2', props: { level: 1 } }),
      node('paragraph', { ref: 'e3', text: 'Use your account.' }),
      node('generic', {
        ref: 'e4',
        children: ['Username', node('textbox', { name: 'Username', ref: 'e5' })],
      }),
      node('checkbox', { name: 'Remember', ref: 'e6', props: { checked: false } }),
      'Remember',
      node('link', { name: 'Help', ref: 'e7', url: '/help' }),
      node('generic', { ref: 'e8', clickable: true, text: 'Close' }),
      node('link'),
    ],
  }),
];

const options = (overrides: Partial<RenderOptions> = {}): RenderOptions => ({
  compact: true,
  interactiveOnly: false,
  urls: false,
  newRefs: new Set(),
  ...overrides,
});

describe('renderSnapshot', () => {
  it('folds unnamed structure, drops labels that repeat a control name, keeps text and every control ref', () => {
    expect(renderSnapshot(form, options())).toEqual([
      '- heading "Sign in" [level=1] [e2]',
      '- Use your account.',
      '- textbox "Username" [e5]',
      '- checkbox "Remember" [e6]',
      '- link "Help" [e7]',
      '- generic [e8]: Close',
    ]);
  });

  it('prints the full tree with every ref when not compact', () => {
    const lines = renderSnapshot(form, options({ compact: false }));
    expect(lines[0]).toBe('- generic [e1]');
    expect(lines).toContain('  - paragraph [e3]: Use your account.');
    expect(lines).toContain('    - Username');
  });

  it('lists only what can be acted on when interactive-only', () => {
    expect(renderSnapshot(form, options({ interactiveOnly: true }))).toEqual([
      '- textbox "Username" [e5]',
      '- checkbox "Remember" [e6]',
      '- link "Help" [e7]',
      '- generic [e8]',
    ]);
  });

  it('marks new refs, shows link targets on request, and stops at max depth', () => {
    const lines = renderSnapshot(form, options({ newRefs: new Set(['e7']), urls: true }));
    expect(lines).toContain('- link "Help" [e7] [new] -> /help');
    const shallow = renderSnapshot(form, options({ compact: false, maxDepth: 1 }));
    expect(shallow).toEqual(['- generic [e1]', '  - … 8 elements deeper than max_depth 1']);
  });
});

describe('capLines', () => {
  it('keeps whole lines under the cap and says how much was left out', () => {
    const lines = Array.from({ length: 1_000 }, (_, i) => `- button "B${i}" [e${i + 1}]`);
    const { text, truncated, fullChars } = capLines('"Page" http://x/', lines, 2_000);
    expect(truncated).toBe(true);
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(fullChars).toBeGreaterThan(20_000);
    expect(text).toMatch(/\[truncated: \d+ of 1000 lines shown \(\d+ of \d+ chars\), \d+ refs not shown/);
  });

  it('leaves a snapshot under the cap untouched', () => {
    expect(capLines('h', ['- a'], 1_000)).toEqual({ text: 'h\n- a', truncated: false, fullChars: 5 });
  });
});
