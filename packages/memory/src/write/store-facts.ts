import { transaction } from '@openlegion/infra/sqlite';
import type { FactInput, MemoryItem, NormalizedFact } from '../model/memory-item.js';
import { embedChecked, llmFor, type MemoryContext } from '../store/memory-context.js';
import {
  type AdmissionConfig,
  admissionScore,
  admissionVerdict,
  DEFAULT_ADMISSION_CONFIG,
} from './admission.js';
import { batchDedup } from './batch-dedup.js';
import { type Decision, decideDedup } from './dedup-decision.js';
import { findSimilar } from './find-similar.js';
import { insertItem, type MergedFields, mergedFields, mergeInto, supersedeItem } from './item-writer.js';
import { embeddingText, normalizeFact } from './normalize-fact.js';

export interface StoreFactsOptions {
  /** Batch and pre-store dedup (default on). Bulk loads of distinct records turn it off. */
  dedup?: boolean;
  /** Admission control; off unless `enabled`. */
  admission?: Partial<AdmissionConfig>;
  signal?: AbortSignal;
}

/** What happened to one fact of a batch. */
export interface FactOutcome {
  index: number;
  action: 'created' | 'merged' | 'skipped' | 'superseded' | 'rejected' | 'duplicate';
  /** The item written or merged into (null when nothing was written). */
  id: number | null;
  reason: string;
}

/** The outcome of a batch, and which modes it ran in. */
export interface StoreReport {
  outcomes: FactOutcome[];
  mode: { embedder: string | null; dedup: 'llm' | 'heuristic' | 'off'; admission: 'on' | 'off' };
}

interface Plan {
  index: number;
  fact: NormalizedFact;
  vector: Float32Array | undefined;
  decision: Decision;
  merged?: { fields: MergedFields; vector: Float32Array | undefined };
}

/**
 * Store many facts at once (the flush path): normalise them all (a bad one fails the batch before
 * anything is written), embed, drop in-batch duplicates, run admission, decide dedup against the
 * store, then write every decision in one transaction.
 */
export async function storeFactsBatch(
  context: MemoryContext,
  facts: readonly FactInput[],
  defaultScope: string,
  options: StoreFactsOptions = {},
): Promise<StoreReport> {
  const dedup = options.dedup ?? true;
  const admission = { ...DEFAULT_ADMISSION_CONFIG, ...options.admission };
  const normalized = facts.map((fact) => normalizeFact(fact, defaultScope));
  const vectors = await embedChecked(context, normalized.map(embeddingText), options.signal);
  const abstractVectors = dedup
    ? await embedChecked(
        context,
        normalized.map((fact) => fact.abstract),
        options.signal,
      )
    : undefined;
  const { kept, duplicateOf } = dedup
    ? batchDedup(
        normalized.map((fact) => fact.abstract),
        abstractVectors,
      )
    : { kept: normalized.map((_, index) => index), duplicateOf: new Map<number, number>() };
  const outcomes: FactOutcome[] = [...duplicateOf].map(([index, twin]) => ({
    index,
    action: 'duplicate',
    id: null,
    reason: `same as fact ${twin} of this batch`,
  }));
  const plans: Plan[] = [];
  for (const index of kept) {
    const fact = normalized[index] as NormalizedFact; // kept holds indexes of normalized
    const vector = vectors?.[index];
    const similar = dedup || admission.enabled ? findSimilar(context, fact, vector) : [];
    if (admission.enabled) {
      const verdict = admissionVerdict(
        admissionScore(fact, similar[0]?.similarity ?? 0, admission),
        admission,
      );
      if (verdict === 'reject') {
        outcomes.push({ index, action: 'rejected', id: null, reason: 'admission control: low score' });
        continue;
      }
      if (verdict === 'probation') fact.tier = 'peripheral';
    }
    const decision: Decision = dedup
      ? await decideDedup(fact, similar, llmFor(context, 'dedup'))
      : { decision: 'create', reason: 'dedup off', by: 'rule' };
    const plan: Plan = { index, fact, vector, decision };
    if (decision.decision === 'merge' && decision.target) {
      const fields = mergedFields(decision.target, fact);
      plan.merged = {
        fields,
        vector: (await embedChecked(context, [embeddingText(fields)], options.signal))?.[0],
      };
    }
    plans.push(plan);
  }
  const now = context.clock.now();
  transaction(context.db, () =>
    context.categories.batch(() => {
      for (const plan of plans) outcomes.push(apply(context, plan, now));
    }),
  );
  return {
    outcomes: outcomes.sort((a, b) => a.index - b.index),
    mode: {
      embedder: context.embedder?.id ?? null,
      dedup: dedup ? (llmFor(context, 'dedup') ? 'llm' : 'heuristic') : 'off',
      admission: admission.enabled ? 'on' : 'off',
    },
  };
}

function apply(context: MemoryContext, plan: Plan, now: number): FactOutcome {
  const { index, fact, vector, decision } = plan;
  const target: MemoryItem | undefined = decision.target && context.items.get(decision.target.id);
  const reason = `${decision.by}: ${decision.reason}`;
  if (decision.decision === 'skip') return { index, action: 'skipped', id: target?.id ?? null, reason };
  if (decision.decision === 'merge' && target && plan.merged) {
    mergeInto(context, target, plan.merged.fields, plan.merged.vector, now);
    return { index, action: 'merged', id: target.id, reason };
  }
  if (decision.decision === 'supersede' && target) {
    return { index, action: 'superseded', id: supersedeItem(context, target, fact, vector, now), reason };
  }
  return { index, action: 'created', id: insertItem(context, fact, vector, now), reason };
}
