import { describe, expect, it } from 'vitest';
import { nestedHop } from './mesh-state.js';

describe('openlegion traces ID', () => {
  it("indents a subagent's hop under its agent by depth, named by its own id", () => {
    expect(nestedHop({ hop: 'http POST /v1/chat/completions', detail: { status: 200 } })).toBe(
      'http POST /v1/chat/completions',
    );
    expect(
      nestedHop({
        hop: 'http POST /v1/chat/completions',
        detail: { status: 200, subagent: 'sub-1a2b3c4d/sub-5e6f7a8b', depth: 2 },
      }),
    ).toBe('    ↳ sub-5e6f7a8b http POST /v1/chat/completions');
  });
});
