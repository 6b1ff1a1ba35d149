import { createLogger } from '@openlegion/infra/log';
import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { EventBus } from './event-bus.js';
import { featureOrder } from './feature-order.js';
import type { HostFeature } from './host-feature.js';
import { eventKey, serviceKey } from './service-key.js';

const A = serviceKey<{ hello(): string }>('a.hello');
const B = serviceKey<number>('b.number');
const names = (features: readonly HostFeature[]) => features.map(({ name }) => name);

describe('featureOrder', () => {
  it('keeps the list order where nothing is needed', () => {
    expect(names(featureOrder([{ name: 'x' }, { name: 'y' }, { name: 'z' }]))).toEqual(['x', 'y', 'z']);
  });

  it('puts a provider before the features that need it', () => {
    const order = featureOrder([
      { name: 'user', needs: [A] },
      { name: 'other' },
      { name: 'provider', provides: [A] },
    ]);
    expect(names(order)).toEqual(['other', 'provider', 'user']);
  });

  it('refuses a circle of needs, naming it', () => {
    const circle = () =>
      featureOrder([
        { name: 'first', needs: [B], provides: [A] },
        { name: 'second', needs: [A], provides: [B] },
      ]);
    expect(circle).toThrow(OpenLegionError);
    expect(circle).toThrow('features need each other in a circle: first -> second -> first');
  });

  it('refuses a need no feature provides, naming both', () => {
    expect(() => featureOrder([{ name: 'user', needs: [A] }])).toThrow(
      'feature "user" needs "a.hello", which no feature provides',
    );
  });
});

describe('a feature built with real services', () => {
  it('gets what it needs from its provider, whatever the list order', async () => {
    const user: HostFeature = {
      name: 'user',
      needs: [A],
      build: (context) => {
        const a = context.need(A);
        return {
          routes: (app) => app.get('/api/hello', async () => ({ said: a.hello() })),
        };
      },
    };
    const provider: HostFeature = {
      name: 'provider',
      provides: [A],
      build: (context) => {
        context.provide(A, { hello: () => 'hi' });
        return {};
      },
    };
    const host = await startFeatureTestHost([user, provider]);
    const answer = await host.app.inject({ method: 'GET', url: '/api/hello', headers: host.operatorAuth });
    expect(answer.json()).toEqual({ said: 'hi' });
    await host.stop();
  });

  it('cannot use a service it does not declare', async () => {
    const sneaky: HostFeature = {
      name: 'sneaky',
      build: (context) => {
        context.need(A);
        return {};
      },
    };
    const provider: HostFeature = {
      name: 'provider',
      provides: [A],
      build: (context) => {
        context.provide(A, { hello: () => 'hi' });
        return {};
      },
    };
    await expect(startFeatureTestHost([provider, sneaky])).rejects.toThrow(
      'feature "sneaky" uses "a.hello" without declaring it in its needs',
    );
  });
});

describe('EventBus', () => {
  const SAID = eventKey<string>('test.said');

  it('tells every listener, and a throwing one does not stop the others', () => {
    const bus = new EventBus(createLogger({ level: 'silent' }));
    const heard: string[] = [];
    bus.on(SAID, () => {
      throw new Error('a broken listener');
    });
    const stop = bus.on(SAID, (text) => heard.push(text));
    bus.emit(SAID, 'one');
    stop();
    bus.emit(SAID, 'two');
    expect(heard).toEqual(['one']);
  });
});
