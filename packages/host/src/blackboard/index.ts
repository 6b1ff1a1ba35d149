export { BLACKBOARD, blackboardFeature } from './blackboard-feature.js';
export { type AuditRecord, BlackboardStore, MAX_VALUE_BYTES } from './blackboard-store.js';
export { BlackboardWatchers } from './blackboard-watchers.js';
