/** Who wants to hear that an agent exited on its own. Listener faults never reach the runtime. */
export class ExitListeners {
  readonly #listeners: Array<(agent: string) => void> = [];

  listen(listener: (agent: string) => void): void {
    this.#listeners.push(listener);
  }

  emit(agent: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(agent);
      } catch {
        // A listener's own failure is its to log; the runtime goes on.
      }
    }
  }
}
