import { z } from 'zod';

/** Field types mesh.yaml sections share. */

/** Names that become parts of container, network and volume names. */
export const slug = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, 'use lower-case letters, digits and "-", starting with a letter (max 40)');

export const TIER_NAMES = ['fast', 'default', 'complex'] as const;
export type TierName = (typeof TIER_NAMES)[number];

/** `provider/model` (litellm style); the model part may itself contain "/". */
export const providerModel = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]*\/.+$/i, 'use provider/model (e.g. openai/gpt-4.1-mini)');
export const modelRef = z
  .string()
  .refine(
    (value) => (TIER_NAMES as readonly string[]).includes(value) || providerModel.safeParse(value).success,
    'use a tier (fast, default, complex) or provider/model (e.g. openai/gpt-4.1-mini)',
  );

/** A secret is never written in mesh.yaml: only a reference to where the host keeps it. */
export const secretRef = z
  .string()
  .regex(
    /^(vault|env):[A-Za-z_][A-Za-z0-9_]*$/,
    'use a reference like vault:OPENAI_API_KEY, never the key itself',
  );

const byteSize = z.string().regex(/^\d+(\.\d+)?\s*[kmg]?b?$/i, 'use a size like 512m or 1g');

export const resourcesSchema = z
  .object({
    memory: byteSize.default('512m'),
    cpus: z.number().positive().max(64).default(1),
    pids: z.number().int().min(16).max(65_536).default(256),
  })
  .strict();
