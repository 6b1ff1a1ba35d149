import type Dockerode from 'dockerode';
import { describe, expect, it } from 'vitest';
import { pushAgentImage } from './swarm-host-container.js';

/** An engine whose push ends with the registry's answer `events`. */
function engine(events: Array<{ status?: string; error?: string }>, images = ['openlegion-agent:0.1.0']) {
  const tagged: unknown[] = [];
  const docker = {
    getImage: (image: string) => ({
      inspect: async () => {
        if (!images.includes(image)) throw Object.assign(new Error('no such image'), { statusCode: 404 });
        return {};
      },
      tag: async (options: unknown) => {
        tagged.push(options);
      },
      push: async () => 'stream',
    }),
    modem: {
      followProgress: (_stream: unknown, done: (error: Error | null, output: unknown[]) => void) =>
        done(null, events),
    },
  };
  return { docker: docker as unknown as Dockerode, tagged };
}

describe('pushAgentImage (runtime.registry)', () => {
  it('tags the image under the registry and pushes it', async () => {
    const { docker, tagged } = engine([{ status: 'Pushed' }]);
    await pushAgentImage(docker, 'openlegion-agent:0.1.0', '127.0.0.1:5000');
    expect(tagged).toEqual([{ repo: '127.0.0.1:5000/openlegion-agent', tag: '0.1.0' }]);
  });

  it('names the registry and the fix when the registry refuses the push', async () => {
    const { docker } = engine([{ error: 'unauthorized: authentication required' }]);
    await expect(
      pushAgentImage(docker, 'openlegion-agent:0.1.0', 'registry.test:5000'),
    ).rejects.toMatchObject({
      code: 'SWARM_PUSH_FAILED',
      message:
        "pushing registry.test:5000/openlegion-agent:0.1.0 failed (unauthorized: authentication required): check that runtime.registry registry.test:5000 is up and accepts pushes (docker login registry.test:5000; an HTTP registry must be in the engine's insecure-registries)",
    });
  });

  it('refuses to push an image the manager does not hold', async () => {
    const { docker } = engine([], []);
    await expect(
      pushAgentImage(docker, 'openlegion-agent:0.1.0', 'registry.test:5000'),
    ).rejects.toMatchObject({
      code: 'SWARM_IMAGE_MISSING',
    });
  });
});
