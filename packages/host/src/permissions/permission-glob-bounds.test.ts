import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { type ConfigProblem, formatConfigProblem, parseMeshConfig } from '../config/index.js';

const meshYaml = (permissions: string) => `llm:
  providers:
    openai: { api_key: vault:OPENAI_API_KEY }
agents:
  a:
    permissions:
${permissions}`;

function problemLines(text: string): string[] {
  try {
    parseMeshConfig(text, 'mesh.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(OpenLegionError);
    expect((error as OpenLegionError).code).toBe('CONFIG_INVALID');
    return ((error as OpenLegionError).details as { problems: ConfigProblem[] }).problems.map(
      formatConfigProblem,
    );
  }
  throw new Error('expected mesh.yaml to be rejected');
}

describe('permission globs in mesh.yaml', () => {
  it('reports a glob with too many wildcards at its file, line and field', () => {
    const text = meshYaml(`      blackboard:
        read: ['research/*', '${'*'.repeat(17)}x']
`);
    expect(problemLines(text)).toEqual([
      'mesh.yaml:8:30 agents.a.permissions.blackboard.read.1: a pattern has at most 16 wildcards (* or ?); this one has 17: use fewer',
    ]);
  });

  it('reports an egress glob longer than 256 characters', () => {
    const text = meshYaml(`      egress: ['${'a'.repeat(250)}.example.com']
`);
    expect(problemLines(text)).toEqual([
      'mesh.yaml:7:16 agents.a.permissions.egress.0: a pattern is at most 256 characters (this one has 262); use a shorter one',
    ]);
  });

  it('accepts globs within the bounds', () => {
    const text = meshYaml(`      pubsub: { publish: ['research.*'], subscribe: ['${'*?'.repeat(8)}'] }
      egress: ['*.wikipedia.org', '10.0.0.0/8']
`);
    expect(parseMeshConfig(text).agents.a?.permissions.egress).toEqual(['*.wikipedia.org', '10.0.0.0/8']);
  });
});
