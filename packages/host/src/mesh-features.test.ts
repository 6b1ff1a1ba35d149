import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeAgentRuntime } from '../test/fake-agent-runtime.js';
import { startFeatureTestHost } from '../test/feature-test-host.js';
import { featureOrder } from './features/index.js';
import { FLEET, fleetFeature } from './fleet/index.js';
import { meshFeatures } from './mesh-features.js';

const features = () =>
  meshFeatures({
    fleet: fleetFeature({ runtime: new FakeAgentRuntime(), beforeLaunch: async () => {} }),
    meshStatus: () => {
      throw new Error('not asked while the features are built');
    },
    onShutdown: () => {},
  });

describe("the host's list of features", () => {
  it('holds plugin units only: each is built with the services it declares, and hands out nothing else', () => {
    // No accessor beside the declaration (as `lanes.registry()` was): what a feature gives is a ServiceKey.
    const unit = new Set(['name', 'migrations', 'adoptsUserVersion', 'needs', 'provides', 'build']);
    const extra = features().flatMap((feature) =>
      Object.keys(feature)
        .filter((key) => !unit.has(key))
        .map((key) => `${feature.name}.${key}`),
    );
    expect(extra).toEqual([]);
    expect(
      features()
        .filter((feature) => !feature.build)
        .map(({ name }) => name),
    ).toEqual([]);
  });

  it('starts the agents after every route they call: only what needs the fleet comes after it', () => {
    const order = featureOrder(features());
    const after = order.slice(order.findIndex(({ name }) => name === 'fleet') + 1);
    expect(after.filter((feature) => !feature.needs?.some(({ name }) => name === FLEET.name))).toEqual([]);
    expect(order.map(({ name }) => name)).toEqual(
      expect.arrayContaining(['agents', 'lanes', 'fleet', 'health']),
    );
  });

  it('builds whole, every need met by a provider in the list', async () => {
    const host = await startFeatureTestHost(features(), undefined, { start: false });
    // The test host adds a feature of its own at the end, to look at what the features provide.
    expect(host.features.map(({ name }) => name)).toEqual([
      ...featureOrder(features()).map(({ name }) => name),
      'feature-test-host',
    ]);
    await host.stop();
  });

  it('is the list docs/architecture.md names, in start order', () => {
    const doc = readFileSync(new URL('../../../docs/architecture.md', import.meta.url), 'utf8');
    const sentence =
      /There are \w+ today, listed in `mesh-features\.ts`: ([\s\S]*?), which watches/.exec(doc)?.[1] ?? '';
    const named = [...sentence.matchAll(/`([a-z]+)`/g)].map((match) => match[1]);
    expect(named).toEqual(featureOrder(features()).map(({ name }) => name));
  });
});
