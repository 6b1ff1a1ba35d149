import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { parseMeshConfig } from './load-mesh-config.js';

const yaml = (subscribe: string) => `llm: { providers: { openai: {} } }
agents: { lead: { permissions: { spawn: ["*"] } } }
templates:
  watcher:
    permissions: { pubsub: { subscribe: [${subscribe}] } }
    subscriptions:
      - { pattern: research.done }
      - { pattern: "news.**", delivery: stream }
`;

describe('template subscriptions at load', () => {
  it("accepts subscriptions within the template's permissions.pubsub.subscribe", () => {
    const config = parseMeshConfig(yaml('"research.*", "news.**"'));
    expect(config.templates.watcher?.subscriptions).toEqual([
      { pattern: 'research.done', delivery: 'lane' },
      { pattern: 'news.**', delivery: 'stream' },
    ]);
  });

  it('refuses one outside them as CONFIG_INVALID at its line, saying what to add', () => {
    let error: unknown;
    try {
      parseMeshConfig(yaml('"research.*"'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OpenLegionError);
    expect((error as OpenLegionError).code).toBe('CONFIG_INVALID');
    expect((error as OpenLegionError).message).toContain(
      'mesh.yaml:8:20 templates.watcher.subscriptions.1.pattern: "news.**" is not within templates.watcher.permissions.pubsub.subscribe; add it there',
    );
    expect((error as OpenLegionError).message).not.toContain('subscriptions.0');
  });
});
