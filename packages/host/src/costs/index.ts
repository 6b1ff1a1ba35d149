export { BillingOwners } from './billing-owners.js';
export { BudgetGate, type Reservation } from './budget-gate.js';
export {
  type Charge,
  type ChargeRequest,
  CostMeter,
  type FlatCharge,
  type FlatChargeRequest,
} from './cost-meter.js';
export { costsFeature } from './costs-feature.js';
export { COST_METER, USAGE_LOG, USAGE_RECORDED } from './costs-keys.js';
export { costOf, type ModelPrice, priceOf } from './prices.js';
export { UsageLog, type UsageRecord } from './usage-log.js';
export { type TappedUsage, tapUsage } from './usage-tap.js';
