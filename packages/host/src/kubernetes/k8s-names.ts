import { OpenLegionError } from '@openlegion/protocol';

/** RFC 1123 label: what Kubernetes requires of namespaces, Services and the pods' hostnames. */
const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_LABEL = 63;
/**
 * A StatefulSet's pods carry a `controller-revision-hash` label of its name plus a hash, and label
 * values stop at 63 characters, so its name must leave room for that (52 is the usual bound).
 */
export const MAX_STATEFULSET_NAME = 52;

/** True when `name` is a DNS-1123 label of at most `max` characters. */
export function isDns1123Label(name: string, max = MAX_LABEL): boolean {
  return name.length <= max && DNS_1123_LABEL.test(name);
}

/**
 * `name` as given, or a CONFIG_INVALID naming `what` and the rule. Names are refused, not
 * mapped: a mapped name would hide which agent an object belongs to.
 */
export function k8sName(name: string, what: string, max = MAX_LABEL): string {
  if (isDns1123Label(name, max)) return name;
  throw new OpenLegionError(
    'CONFIG_INVALID',
    `${what} "${name}" is not a valid Kubernetes name: use at most ${max} lower-case letters, digits and "-", starting and ending with a letter or digit`,
    { details: { name, max } },
  );
}

/** The StatefulSet, headless Service and token Secret prefix of one agent. */
export function agentObjectName(agent: string): string {
  return k8sName(`agent-${agent}`, `agent "${agent}" gives the object name`, MAX_STATEFULSET_NAME);
}
