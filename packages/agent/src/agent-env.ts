import { AGENT_PORT, OpenLegionError } from '@openlegion/protocol';
import { z } from 'zod';

/** An unset variable and an empty one mean the same thing: use the default or fail as missing. */
const unsetWhenEmpty = (value: unknown): unknown => (value === '' ? undefined : value);

const agentEnvSchema = z.object({
  AGENT_ID: z.preprocess(unsetWhenEmpty, z.string()),
  MESH_URL: z.preprocess(
    unsetWhenEmpty,
    z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .transform((url) => url.replace(/\/+$/, '')),
  ),
  MESH_TOKEN: z.preprocess(unsetWhenEmpty, z.string()),
  AGENT_PORT: z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(0).max(65_535).default(AGENT_PORT)),
  AGENT_HOST: z.preprocess(unsetWhenEmpty, z.string().default('0.0.0.0')),
  AGENT_DATA_DIR: z.preprocess(unsetWhenEmpty, z.string().default('/data')),
  /** The fleet's `skills/` folder, set by the host's runtime when mesh.yaml has one (read-only); '' for none. */
  AGENT_FLEET_SKILLS_DIR: z.preprocess(unsetWhenEmpty, z.string().default('')),
  LOG_LEVEL: z.preprocess(
    unsetWhenEmpty,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

/** The agent's environment after parsing: `MESH_URL` has no trailing slash. */
export type AgentEnv = z.infer<typeof agentEnvSchema>;

/**
 * Parse the agent process environment (docs/architecture.md, "Agent process contract").
 *
 * @throws {OpenLegionError} `CONFIG_INVALID`, naming every missing or invalid variable. Values are never
 * echoed, so `MESH_TOKEN` cannot leak through the message.
 *
 * @example
 * const env = parseAgentEnv(process.env); // env.AGENT_PORT === 8400 unless set
 */
export function parseAgentEnv(source: Record<string, string | undefined>): AgentEnv {
  const result = agentEnvSchema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'environment');
    return unsetWhenEmpty(source[name]) === undefined ? `${name} is required` : `${name} ${issue.message}`;
  });
  throw new OpenLegionError('CONFIG_INVALID', `invalid agent environment: ${problems.join('; ')}`, {
    details: { variables: result.error.issues.map((issue) => String(issue.path[0])) },
  });
}
