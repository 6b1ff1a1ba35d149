import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseJsonReply } from './fast-tier.js';

const schema = z.object({ facts: z.array(z.unknown()) });

describe('parseJsonReply', () => {
  it('finds the JSON object in an answer wrapped in prose or a code fence', () => {
    expect(parseJsonReply('Sure! ```json\n{"facts":[]}\n``` Done.', schema)).toEqual({ facts: [] });
  });

  it('says what is wrong with an answer that is not the JSON asked for', () => {
    expect(() => parseJsonReply('I cannot help with that.', schema)).toThrow(
      'the answer holds no JSON object',
    );
    expect(() => parseJsonReply('{"facts": [1,}', schema)).toThrow('the answer is not valid JSON');
    expect(() => parseJsonReply('{"items": []}', schema)).toThrow(/does not fit: facts/);
  });
});
