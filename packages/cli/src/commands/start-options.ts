export interface StartOptions {
  config: string;
  runtime?: 'docker' | 'process' | 'swarm';
  detach?: boolean;
  detachedChild?: boolean;
  /** Start even when the network lockdown cannot be installed (runtime.allow_unlocked_network). */
  allowUnlockedNetwork?: boolean;
}

/** Messages the background host sends its launching parent over IPC. */
export type DetachMessage =
  | { type: 'line'; text: string }
  | { type: 'ready' }
  | { type: 'failed'; message: string };
