// Topic patterns are matched by the host's one pattern matcher (no regex built from an agent's pattern).
export { topicMatcher } from '../permissions/index.js';
