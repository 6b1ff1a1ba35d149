export { approvalPollMs } from './approval-routes.js';
export { type ApprovalSource, Approvals } from './approvals.js';
export { APPROVAL_CHANGED, APPROVALS, approvalsFeature } from './approvals-feature.js';
export { argumentsPreview, displayText } from './arguments-preview.js';
export { ToolCallApprovals } from './tool-call-approvals.js';
