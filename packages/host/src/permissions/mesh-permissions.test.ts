import { meshConfigSchema, OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { MeshPermissions } from './mesh-permissions.js';
import { globMatcher } from './pattern-matcher.js';

const config = meshConfigSchema.parse({
  llm: { providers: { openai: {} } },
  agents: {
    researcher: {
      permissions: {
        blackboard: { read: ['research/*', 'shared/?'], write: ['research/*'] },
        pubsub: { publish: ['research.*'], subscribe: ['tasks.*'] },
        message: ['writer'],
        credentials: { GITHUB_TOKEN: { hosts: ['api.github.com'], in: 'header:authorization' } },
        egress: ['*.wikipedia.org'],
      },
    },
    writer: {},
  },
});

describe('globMatcher', () => {
  it('matches * across separators, ? as one character, and the rest literally', () => {
    const matches = globMatcher(['research/*', 'a.b?', '(x)+']);
    expect(matches('research/notes/2024')).toBe(true);
    expect(matches('research')).toBe(false);
    expect(matches('a.bc')).toBe(true);
    expect(matches('aXbc')).toBe(false);
    expect(matches('(x)+')).toBe(true);
    expect(matches('xx')).toBe(false);
    expect(globMatcher([])('anything')).toBe(false);
  });
});

describe('MeshPermissions', () => {
  const permissions = MeshPermissions.of(config);

  it('grants what mesh.yaml lists and nothing else', () => {
    expect(permissions.can('researcher', 'blackboard.read', 'research/a')).toBe(true);
    expect(permissions.can('researcher', 'blackboard.read', 'shared/x')).toBe(true);
    expect(permissions.can('researcher', 'blackboard.write', 'shared/x')).toBe(false);
    expect(permissions.can('researcher', 'pubsub.publish', 'research.done')).toBe(true);
    expect(permissions.can('researcher', 'pubsub.subscribe', 'research.done')).toBe(false);
    expect(permissions.can('researcher', 'message', 'writer')).toBe(true);
    expect(permissions.can('researcher', 'credentials', 'GITHUB_TOKEN')).toBe(true);
    expect(permissions.can('researcher', 'credentials', 'GITHUB')).toBe(false);
    expect(permissions.can('researcher', 'egress', 'en.wikipedia.org')).toBe(true);
    expect(permissions.can('researcher', 'egress', 'wikipedia.org.evil.com')).toBe(false);
    expect(permissions.can('writer', 'blackboard.read', 'research/a')).toBe(false);
  });

  it('denies an agent mesh.yaml does not name everything', () => {
    for (const permission of ['blackboard.read', 'pubsub.publish', 'message', 'egress'] as const)
      expect(permissions.can('ghost', permission, '*')).toBe(false);
  });

  it('names the missing permission and what is granted in its 403', () => {
    const refusal = (() => {
      try {
        permissions.require('researcher', 'blackboard.write', 'shared/x');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(OpenLegionError);
    expect(refusal).toMatchObject({
      code: 'MESH_FORBIDDEN',
      message:
        'agent "researcher" may not blackboard write "shared/x": agents.researcher.permissions.blackboard.write in mesh.yaml is ["research/*"]',
    });
    expect(() => permissions.require('ghost', 'message', 'writer')).toThrow(
      '"ghost" is not an agent of mesh.yaml',
    );
    expect(MeshPermissions.of(config)).toBe(permissions);
  });
});
