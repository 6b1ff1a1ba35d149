export { inListedCidr, listedCidrs, refusedBecause } from './address-policy.js';
export { type EgressFeature, egressFeature } from './egress-feature.js';
export { type Dialer, type EgressDecision, EgressProxy, type Resolver } from './egress-proxy.js';
export { type FirewallCommand, installNetworkLockdown } from './network-lockdown.js';
