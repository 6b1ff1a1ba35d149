import { eventKey } from '../features/index.js';
import type { EgressDecision } from './egress-policy.js';

/** The egress proxy allowed or refused an agent's connection (traces record it under its trace). */
export const EGRESS_DECIDED = eventKey<EgressDecision>('egress.decided');
