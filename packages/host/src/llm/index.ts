export { LLM_CALL_SETTLED, type LlmCallSettled } from './llm-call-settled.js';
export { type LlmFeatureOptions, llmFeature } from './llm-feature.js';
export {
  createLlmProxy,
  type LlmCallContext,
  type LlmProxy,
  type LlmProxyOptions,
  type UpstreamPath,
} from './llm-proxy.js';
export {
  type ChatCompletionBody,
  chatCompletionBodySchema,
  type EmbeddingsBody,
  embeddingsBodySchema,
} from './llm-requests.js';
export { FAILS_OVER, type FailureClass, ModelHealthBoard, type ModelState } from './model-health.js';
export { listConfiguredModels, type ModelList, type ModelListEntry } from './model-list.js';
export {
  type ModelResolverOptions,
  type ProviderKind,
  type ResolvedModel,
  resolveUpstreamModel,
} from './model-resolver.js';
export { ProviderUnavailableError } from './upstream-errors.js';
