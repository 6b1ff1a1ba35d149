import Dockerode from 'dockerode';

/** Whether a Docker engine answers, and whether this run insists on one. */
export interface DockerEngineProbe {
  reachable: boolean;
  /** Why it is unreachable (empty when reachable). */
  reason: string;
  /** `OPENLEGION_REQUIRE_DOCKER=1`: a missing engine is a failure, not a reason to skip. */
  required: boolean;
}

/**
 * Pings the engine. Tests use it to skip Docker suites with a reason — or, when
 * `OPENLEGION_REQUIRE_DOCKER=1`, to fail — on machines without an engine.
 */
export async function probeDockerEngine(
  docker: Dockerode = new Dockerode(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<DockerEngineProbe> {
  const required = env.OPENLEGION_REQUIRE_DOCKER === '1';
  try {
    await docker.ping();
    return { reachable: true, reason: '', required };
  } catch (error) {
    return { reachable: false, reason: error instanceof Error ? error.message : String(error), required };
  }
}
