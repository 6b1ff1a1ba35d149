import { describe, expect, it } from 'vitest';
import { meshConfigSchema } from './mesh-config.js';

const withCredentials = (credentials: unknown) =>
  meshConfigSchema.safeParse({
    llm: { providers: { openai: {} } },
    agents: { a: { permissions: { credentials } } },
  });
const issues = (credentials: unknown) =>
  withCredentials(credentials).error?.issues.map((issue) => ({ path: issue.path, message: issue.message }));

describe('permissions.credentials', () => {
  it('binds each credential to hosts and places, a single place becoming a list, header names lower-cased', () => {
    const parsed = withCredentials({
      GITHUB_TOKEN: { hosts: ['API.github.com'], in: 'header:Authorization' },
      TELEGRAM_BOT_TOKEN: { hosts: ['api.telegram.org'], in: ['path', 'query:token', 'body'] },
    });
    expect(parsed.data?.agents.a?.permissions.credentials).toEqual({
      GITHUB_TOKEN: { hosts: ['api.github.com'], in: ['header:authorization'] },
      TELEGRAM_BOT_TOKEN: { hosts: ['api.telegram.org'], in: ['path', 'query:token', 'body'] },
    });
  });

  it('refuses the bare list form, showing the bound form of each name', () => {
    expect(issues(['GITHUB_TOKEN'])).toEqual([
      {
        path: ['agents', 'a', 'permissions', 'credentials'],
        message:
          'bind each credential to its hosts and place, e.g. credentials: { GITHUB_TOKEN: { hosts: [api.github.com], in: header:authorization } }',
      },
    ]);
    expect(issues(['GITHUB_TOKEN', 'SLACK_TOKEN'])?.[0]?.message).toBe(
      'bind each credential to its hosts and place, e.g. credentials: { GITHUB_TOKEN: { hosts: [api.github.com], in: header:authorization }, SLACK_TOKEN: { hosts: [<host>], in: header:authorization } }',
    );
  });

  it('refuses a grant without hosts, a place it does not know, a host with a scheme, and a bare name', () => {
    expect(issues({ T: { hosts: [], in: 'body' } })).toEqual([
      {
        path: ['agents', 'a', 'permissions', 'credentials', 'T', 'hosts'],
        message: 'name at least one host',
      },
    ]);
    expect(issues({ T: { hosts: ['x.com'], in: 'cookie' } })?.[0]?.message).toBe(
      '"cookie": use header:<name>, query:<name>, body or path',
    );
    expect(issues({ T: { hosts: ['https://x.com'], in: 'body' } })?.[0]?.message).toBe(
      'use a host name or a glob like *.example.com (no scheme, port or path)',
    );
    expect(issues({ T: { hosts: [`${'*'.repeat(17)}.x.com`], in: 'body' } })?.[0]?.message).toBe(
      'a pattern has at most 16 wildcards (* or ?); this one has 17: use fewer',
    );
    expect(issues({ T: null })?.[0]?.message).toBe(
      'bind the credential to its hosts and place: { hosts: [api.example.com], in: header:authorization }',
    );
    expect(issues({ T: { hosts: ['x.com'] } })?.[0]?.path).toEqual([
      'agents',
      'a',
      'permissions',
      'credentials',
      'T',
      'in',
    ]);
  });
});
