import { COST_METER } from '../costs/index.js';
import type { HostFeature } from '../features/index.js';
import { llmCallSlotsOf } from '../server/index.js';
import { LLM_CALL_SETTLED, type LlmCallSettled } from './llm-call-settled.js';
import { createLlmProxy, type LlmProxy } from './llm-proxy.js';
import { registerLlmRoutes } from './llm-routes.js';

export interface LlmFeatureOptions {
  /** Base URLs that win over mesh.yaml, by provider name (the loopback servers of scripted providers). */
  baseUrlOverrides?: Record<string, string>;
  /** Reserve and record what each call costs with the costs feature's meter (the host always does). */
  meterCosts?: boolean;
}

/** The OpenAI-compatible LLM proxy (`/v1/*`) as a host feature. */
export function llmFeature(options: LlmFeatureOptions = {}): HostFeature {
  const { meterCosts, ...proxyOptions } = options;
  return {
    name: 'llm',
    needs: meterCosts ? [COST_METER] : [],
    build(context) {
      const meter = meterCosts ? context.need(COST_METER) : undefined;
      // Made with the routes, when the app is built: the host loads that while its agents boot.
      let proxy: LlmProxy | undefined;
      return {
        routes(app) {
          proxy ??= createLlmProxy({
            config: context.config,
            secrets: context.secrets,
            logger: context.logger,
            clock: context.clock,
            ...proxyOptions,
          });
          // Each call, as it ends, is a fact on the bus (telemetry's spans and metrics).
          const settled = (call: LlmCallSettled) => context.events.emit(LLM_CALL_SETTLED, call);
          registerLlmRoutes(
            app,
            proxy,
            context.config,
            meter && (() => meter),
            llmCallSlotsOf(context),
            settled,
          );
        },
        async stop() {
          await proxy?.close();
        },
      };
    },
  };
}
