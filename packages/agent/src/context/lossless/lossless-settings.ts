/**
 * The lossless context store's constants (seed 001, after lossless-claw). Defaults in code, not in
 * mesh.yaml yet: they are tuned together, and a knob each would invite combinations nobody tested.
 */
export interface LosslessSettings {
  /** Summarise once the prompt fills this share of the window… */
  summariseAt: number;
  /** …and at least this many raw tokens lie outside the fresh tail (so summaries are worth a call). */
  minOutsideTokens: number;
  /** Above this share of the window, summarise whatever lies outside the tail, however little. */
  forceAt: number;
  /** The last messages always sent verbatim (widened to whole tool rounds). */
  freshTailMessages: number;
  /** Raw tokens of messages one leaf summary stands for. */
  leafChunkTokens: number;
  /** Longest leaf summary; a longer answer escalates (normal → aggressive → truncation). */
  leafTargetTokens: number;
  /** Longest condensed summary (a summary of summaries). */
  condensedTargetTokens: number;
  /** Leaves condensed into one depth-1 summary. */
  leafFanout: number;
  /** Condensed summaries condensed into one of the next depth. */
  condensedFanout: number;
  /** Fewest summaries condensed together when the prompt is over budget and cannot wait for a full fanout. */
  minFanout: number;
}

export const LOSSLESS_DEFAULTS: Readonly<LosslessSettings> = Object.freeze({
  summariseAt: 0.75,
  minOutsideTokens: 20_000,
  forceAt: 0.9,
  freshTailMessages: 64,
  leafChunkTokens: 20_000,
  leafTargetTokens: 2_400,
  condensedTargetTokens: 2_000,
  leafFanout: 8,
  condensedFanout: 4,
  minFanout: 2,
});
