import type { ApprovalSource } from '../approvals/index.js';
import type { WorkflowEngine } from './engine/workflow-engine.js';
import type { WorkflowRepository } from './store/workflow-repository.js';

/**
 * The workflows' steps that wait, as a source of the host's one list of approvals. A step's id is
 * `RUN:STEP` (run ids hold no `:`), so a decision by id reaches the engine as run and step.
 */
export function workflowApprovalSource(engine: WorkflowEngine, repo: WorkflowRepository): ApprovalSource {
  return {
    kind: 'workflow_step',
    pending: () => repo.pendingApprovals(),
    async decide({ id, decision, note }) {
      const approval = repo.pendingApprovals().find((candidate) => candidate.id === id);
      if (!approval) return false;
      await engine[decision](approval.run, approval.step, note);
      return true;
    },
  };
}
