export { inListedCidr, listedCidrs, refusedBecause } from './address-policy.js';
export { EGRESS_DECIDED } from './egress-events.js';
export {
  EGRESS,
  type Egress,
  type EgressFeatureOptions,
  egressFeature,
  type NetworkLock,
} from './egress-feature.js';
export { type EgressDecision, EgressPolicy, type Resolver } from './egress-policy.js';
export { type Dialer, EgressProxy } from './egress-proxy.js';
export { parseConnectAuthority, parsePort } from './egress-target.js';
export { type FirewallCommand, installNetworkLockdown } from './network-lockdown.js';
export { type IpAddress, type NormalisedAddress, normaliseAddress } from './normalise-address.js';
