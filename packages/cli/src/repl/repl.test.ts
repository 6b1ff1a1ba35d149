import { describe, expect, it } from 'vitest';
import { complete } from './repl.js';

describe('REPL completion', () => {
  const agents = ['researcher', 'reviewer', 'writer'];

  it('completes slash commands', () => {
    expect(complete('/st', agents)[0]).toEqual(['/status', '/steer']);
  });

  it('completes @agent', () => {
    expect(complete('@re', agents)[0]).toEqual(['@researcher ', '@reviewer ']);
  });

  it('completes the agent after /use, /steer and /restart', () => {
    expect(complete('/use wr', agents)[0]).toEqual(['/use writer ']);
    expect(complete('/steer r', agents)[0]).toEqual(['/steer researcher ', '/steer reviewer ']);
  });

  it('offers nothing inside an ordinary message', () => {
    expect(complete('summarise the paper', agents)[0]).toEqual([]);
  });
});
