import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../embed/local-embedder.js';
import { MemoryEngine } from '../memory-engine.js';
import { defaultScopes } from '../model/scope.js';
import { createMemoryTools } from './memory-tools.js';

const context = { workspace: '/tmp', signal: new AbortController().signal };

describe('memory tools', () => {
  it('saves with memory_save and finds it with memory_search, in the AgentTool shape', async () => {
    const memory = MemoryEngine.open({
      file: ':memory:',
      embedder: createLocalEmbedder(),
      defaultScopes: defaultScopes('a'),
    });
    const { memorySearch, memorySave } = createMemoryTools({ memory });
    expect([memorySearch.name, memorySearch.group, memorySave.name]).toEqual([
      'memory_search',
      'memory',
      'memory_save',
    ]);
    const saved = await memorySave.run(
      memorySave.input.parse({ content: 'The staging database is db-stage-3.', category: 'entities' }),
      context,
    );
    expect(saved.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^created \(item 1\)/),
    });
    const found = await memorySearch.run(
      memorySearch.input.parse({ query: 'staging database name' }),
      context,
    );
    expect(found.isError).toBeUndefined();
    expect(found.content[0]).toMatchObject({ text: expect.stringContaining('db-stage-3') });
    expect(memory.get(1)?.scope).toBe('agent:a');
    memory.close();
  });

  it('returns bad input as an error result the model can act on', async () => {
    const memory = MemoryEngine.open({ file: ':memory:' });
    const { memorySearch } = createMemoryTools({ memory, hierarchical: true });
    const result = await memorySearch.run(
      memorySearch.input.parse({ query: 'x', category: 'recipes' }),
      context,
    );
    expect(result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('MEM_CATEGORY_UNKNOWN') }],
    });
    memory.close();
  });
});
