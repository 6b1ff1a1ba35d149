import {
  type ChatLlm,
  createLocalEmbedder,
  createOpenAiEmbedder,
  type Embedder,
  type MemoryEngineOptions,
} from '@openlegion/memory';
import type { AgentSelf } from '@openlegion/protocol';
import type { FastTierCall } from '../context/fast-tier.js';
import { cachedEmbedder } from './cached-embedder.js';

/** A memory LLM call that names no signal still ends: the host proxy may queue behind a slow provider. */
const MEMORY_LLM_TIMEOUT_MS = 60_000;

/**
 * How the agent opens its memory engine, from `GET /mesh/self`'s `memory`: the embedder (`local`, or
 * a provider model through the host's `/v1/embeddings`, cached), the fast-tier LLM for the paths
 * switched on, and `bm25` on embedder failures so a provider outage never stops the agent.
 */
export function agentMemoryOptions(
  memory: AgentSelf['memory'],
  host: { meshUrl: string; token: string; fastTier: FastTierCall },
): Pick<MemoryEngineOptions, 'embedder' | 'llm' | 'llmPaths' | 'admission' | 'onEmbedderError'> {
  const { fast_tier: fastTier } = memory;
  const usesLlm = fastTier.extract || fastTier.dedup || fastTier.rerank;
  return {
    embedder: memoryEmbedder(memory.embedder, host),
    ...(usesLlm ? { llm: fastTierLlm(host.fastTier) } : {}),
    llmPaths: {
      extract: fastTier.extract,
      dedup: fastTier.dedup,
      rerank: fastTier.rerank ? 'always' : 'never',
    },
    admission: fastTier.admission,
    onEmbedderError: 'bm25',
  };
}

/** `local` is the offline embedder; anything else is a provider/model the host resolved and allows. */
export function memoryEmbedder(model: string, host: { meshUrl: string; token: string }): Embedder {
  if (model === 'local') return createLocalEmbedder();
  return cachedEmbedder(createOpenAiEmbedder({ baseUrl: `${host.meshUrl}/v1`, token: host.token, model }));
}

function fastTierLlm(call: FastTierCall): ChatLlm {
  return {
    model: 'fast',
    complete: ({ system, user, signal }) =>
      call({ system, user, signal: signal ?? AbortSignal.timeout(MEMORY_LLM_TIMEOUT_MS) }),
  };
}
