import { describe, expect, it } from 'vitest';
import { lcmRequest } from './lcm.js';

const options = { limit: '10' };

describe('openlegion lcm', () => {
  it('maps each action to the agent route the host forwards', () => {
    expect(lcmRequest('grep', ['staging', 'port'], options)).toEqual({
      method: 'POST',
      path: 'grep',
      body: { pattern: 'staging port', limit: 10 },
    });
    expect(lcmRequest('describe', ['S12'], options)).toEqual({ method: 'GET', path: 'describe/S12' });
    expect(lcmRequest('expand', ['S12'], { ...options, from: '140' })).toEqual({
      method: 'GET',
      path: 'expand/S12?from=140',
    });
    expect(lcmRequest('expand', [], { ...options, conversation: 'c 1', from: '3' })).toEqual({
      method: 'GET',
      path: 'expand?conversation=c%201&from=3',
    });
  });

  it('says what is missing', () => {
    expect(() => lcmRequest('grep', [], options)).toThrow(
      'grep needs words to look for: openlegion lcm AGENT grep WORDS',
    );
    expect(() => lcmRequest('expand', [], options)).toThrow(
      'expand needs a summary id: openlegion lcm AGENT expand S12',
    );
    expect(() => lcmRequest('list', [], options)).toThrow(
      'no lcm action "list"; actions: grep, describe, expand',
    );
  });
});
