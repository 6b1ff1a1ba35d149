import type { StepRecord } from '../store/workflow-records.js';

/** A row not started yet: a step of a new run, or an element of a `for_each` step. */
export function newStepRow(
  runId: string,
  stepId: string,
  item: number,
  itemValue: unknown,
  agent: string | null,
): StepRecord {
  return {
    runId,
    stepId,
    item,
    itemValue,
    state: 'pending',
    agent,
    attempt: 0,
    laneKey: null,
    laneItemId: null,
    approved: false,
    note: null,
    output: null,
    errorCode: null,
    errorMessage: null,
    notBefore: null,
    deadlineAt: null,
    waitingSince: null,
    startedAt: null,
    finishedAt: null,
    costUsd: null,
  };
}
