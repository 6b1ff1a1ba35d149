import { TOOL_GROUPS } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeTempDir } from '../../test/tool-harness.js';
import { createCoreTools } from './core-tools.js';
import { createMeshTools } from './mesh/mesh-tools.js';

const mesh = { meshUrl: 'http://127.0.0.1:9', token: 't' };

describe('createCoreTools and createMeshTools', () => {
  const core = createCoreTools({ mesh, proxy: {} });
  const all = [...core.tools, ...createMeshTools({ mesh })];

  it('offers every core tool once, each in its group', () => {
    const byGroup = Object.fromEntries(
      TOOL_GROUPS.map((group) => [
        group,
        all.filter((tool) => tool.group === group).map((tool) => tool.name),
      ]),
    );
    expect(byGroup).toEqual({
      files: ['read_file', 'write_file', 'edit_file', 'list_files', 'grep_files'],
      runtime: [
        'run_command',
        'process_start',
        'process_status',
        'process_output',
        'process_kill',
        'process_list',
      ],
      web: ['http_request', 'web_fetch', 'web_search'],
      memory: [],
      mesh: [
        'blackboard_get',
        'blackboard_put',
        'blackboard_list',
        'blackboard_watch',
        'publish',
        'message_agent',
        'subscribe',
        'unsubscribe',
        'subscriptions',
        'pubsub_next',
        'cron_add',
        'cron_list',
        'cron_remove',
        'spawn_agent',
        'spawned_agents',
      ],
      browser: [],
      mcp: [],
      // skill_view and tool_search are made beside the skills and by the loop, not here.
      skills: [],
      discovery: [],
    });
  });

  it('gives the model a JSON Schema object with a described field for every argument', () => {
    for (const tool of all) {
      const schema = z.toJSONSchema(tool.input, { io: 'input' }) as {
        type: string;
        properties: Record<string, { description?: string }>;
      };
      expect(schema.type, tool.name).toBe('object');
      for (const [field, property] of Object.entries(schema.properties))
        expect(property.description, `${tool.name}.${field}`).toBeTruthy();
      expect(tool.description.length, tool.name).toBeLessThan(250);
    }
  });

  it('kills background processes and refuses new ones once closed', async () => {
    const { dir, remove } = makeTempDir();
    const tools = createCoreTools({ mesh, proxy: {}, env: { PATH: process.env.PATH } });
    try {
      const started = tools.processes.start('sleep 60', dir);
      await tools.close();
      expect(tools.processes.get(started.id)).toMatchObject({ running: false, killedFor: 'shutdown' });
      expect(() => tools.processes.start('true', dir)).toThrow(/shutting down/);
    } finally {
      remove();
    }
  });

  it('rejects bad arguments through the schema with the field named', () => {
    const readFile = all.find((tool) => tool.name === 'read_file');
    const parsed = readFile?.input.safeParse({ path: 'a', offset: 0 });
    expect(parsed?.success).toBe(false);
    expect(parsed?.error?.issues[0]?.path).toEqual(['offset']);
  });
});
