import type { CostMeter } from '../costs/index.js';
import type { HostFeature } from '../features/index.js';
import { llmCallSlotsOf } from '../server/index.js';
import { createLlmProxy, type LlmProxy } from './llm-proxy.js';
import { registerLlmRoutes } from './llm-routes.js';

export interface LlmFeatureOptions {
  /** Base URLs that win over mesh.yaml, by provider name (the loopback servers of scripted providers). */
  baseUrlOverrides?: Record<string, string>;
  /** Reserve and record what each call costs (the costs feature). */
  costs?: () => CostMeter;
}

/** The OpenAI-compatible LLM proxy (`/v1/*`) as a host feature. */
export function llmFeature(options: LlmFeatureOptions = {}): HostFeature {
  let proxy: LlmProxy | undefined;
  return {
    name: 'llm',
    routes(app, context) {
      const { costs, ...proxyOptions } = options;
      proxy ??= createLlmProxy({
        config: context.config,
        secrets: context.secrets,
        logger: context.logger,
        clock: context.clock,
        ...proxyOptions,
      });
      registerLlmRoutes(app, proxy, context.config, costs, llmCallSlotsOf(context));
    },
    async stop() {
      await proxy?.close();
    },
  };
}
