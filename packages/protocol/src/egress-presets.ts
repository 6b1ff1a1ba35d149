import { globPatternSchema } from './pattern-bounds.js';

/**
 * Named egress grants, written with a leading `@` in `permissions.egress` so they can never be
 * mistaken for a host name (`@` is not allowed in one; a bare `web` stays a hostname glob).
 * Each says in a word what a person would otherwise spell as a wildcard and then wonder about.
 */
export const EGRESS_PRESETS = {
  /**
   * Any public host. The address policy still applies after resolution: loopback, private,
   * link-local (cloud metadata), CGNAT, multicast and reserved addresses stay refused unless a CIDR
   * in the same list names them, and `permissions.egress_ports` still limits the ports.
   */
  '@web': 'any public host',
} as const;

export type EgressPreset = keyof typeof EGRESS_PRESETS;

/** The web preset, as the host and `openlegion init` write it. */
export const WEB_EGRESS_PRESET: EgressPreset = '@web';

/** Whether `entry` of an egress list is a preset (`@web`) rather than a host pattern or CIDR. */
export function isEgressPreset(entry: string): entry is EgressPreset {
  return Object.hasOwn(EGRESS_PRESETS, entry);
}

/** What is wrong with an `@` entry of an egress list, or undefined when it is fine. */
export function egressPresetProblem(entry: string): string | undefined {
  if (!entry.startsWith('@') || isEgressPreset(entry)) return undefined;
  const known = Object.entries(EGRESS_PRESETS)
    .map(([name, meaning]) => `'${name}' (${meaning})`)
    .join(', ');
  return `unknown egress preset '${entry.slice(0, 60)}': the known presets are ${known}`;
}

/** One entry of `permissions.egress`: a bounded host glob, a literal address, a CIDR or a known preset. */
export const egressEntrySchema = globPatternSchema.superRefine((entry, ctx) => {
  const problem = egressPresetProblem(entry);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
