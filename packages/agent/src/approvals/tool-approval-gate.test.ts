import { createLogger } from '@openlegion/infra/log';
import { describe, expect, it } from 'vitest';
import { createMeshClient } from '../tools/mesh/mesh-client.js';
import { createToolApprovalGate } from './tool-approval-gate.js';

const deps = {
  mesh: createMeshClient({ meshUrl: 'http://127.0.0.1:9', token: 't' }),
  logger: createLogger({ level: 'silent' }),
};

describe('createToolApprovalGate', () => {
  it('matches tool names by glob: a whole MCP server with server__*, others exactly', () => {
    const gate = createToolApprovalGate({ ...deps, patterns: ['github__*', 'run_command'] });
    expect(gate?.matches('github__create_issue')).toBe(true);
    expect(gate?.matches('github__')).toBe(true);
    expect(gate?.matches('gitlab__create_issue')).toBe(false);
    expect(gate?.matches('run_command')).toBe(true);
    expect(gate?.matches('run_command_2')).toBe(false);
    expect(gate?.matches('read_file')).toBe(false);
  });

  it('is absent when the approval list is empty: nothing asks first', () => {
    expect(createToolApprovalGate({ ...deps, patterns: [] })).toBeUndefined();
  });
});
