export { createLosslessManager } from './create-lossless-manager.js';
export {
  LCM_DESCRIBE_MAX_TOKENS,
  LCM_EXPAND_MAX_TOKENS,
  LCM_GREP_MAX_TOKENS,
  lcmDescribe,
  lcmExpand,
  lcmGrep,
} from './lcm-queries.js';
export { lcmRoutes } from './lcm-routes.js';
export { createLcmTools } from './lcm-tools.js';
export { LOSSLESS_DEFAULTS, type LosslessSettings } from './lossless-settings.js';
export { type SummaryNode, SummaryStore } from './summary-store.js';
