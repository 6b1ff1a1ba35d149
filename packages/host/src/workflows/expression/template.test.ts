import { describe, expect, it } from 'vitest';
import { ExpressionError, parseTemplate, readPath, renderTemplate } from './index.js';

const values = { inputs: { topic: 'tides', n: 3 }, steps: { a: { output: { claims: ['x', 'y'] } } } };
const render = (text: string) =>
  renderTemplate(
    parseTemplate(text),
    (root, segments) => readPath(values, [root, ...segments]),
    (key) => (key === 'style/guide' ? 'be brief' : undefined),
  );

describe('task templates', () => {
  it('fills inputs, step outputs (lists and objects as JSON) and blackboard entries', () => {
    expect(render('About ${inputs.topic} (${inputs.n}); ${blackboard:style/guide}.')).toBe(
      'About tides (3); be brief.',
    );
    expect(render('${steps.a.output.claims}')).toBe('[\n  "x",\n  "y"\n]');
    expect(render('missing: [${inputs.nope}] [${blackboard:nope}]')).toBe('missing: [] []');
  });

  it('keeps $${ as a literal ${', () => {
    expect(render('cost: $${inputs.topic}')).toBe('cost: ${inputs.topic}');
  });

  it('splits a template into text, paths and blackboard keys with their offsets', () => {
    expect(parseTemplate('a ${steps.x.output} b ${blackboard: k }')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'path', root: 'steps', segments: ['x', 'output'], at: 2 },
      { kind: 'text', text: ' b ' },
      { kind: 'blackboard', key: 'k', at: 22 },
    ]);
  });

  it.each([
    ['open ${inputs.topic', /"\$\{" is not closed/],
    ['${inputs.n > 1}', /is not a value path/],
    ['${}', /expected a value/],
    ['${blackboard:}', /needs a key/],
  ])('refuses %s', (text, message) => {
    expect(() => parseTemplate(text)).toThrow(ExpressionError);
    expect(() => parseTemplate(text)).toThrow(message);
  });
});
