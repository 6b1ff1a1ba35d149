import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A program running in a detached tmux pane: keys go in as a person types them, the screen comes out. */
export interface TmuxPane {
  /** Type `text`, then Enter (unless `enter` is false). */
  type(text: string, enter?: boolean): Promise<void>;
  /** Send a key by tmux name (`C-c`, `Tab`). */
  key(name: string): Promise<void>;
  /** The visible screen and its scrollback. */
  screen(): Promise<string>;
  /** Whether the program has exited (the pane stays, dead, to be read). */
  exited(): Promise<boolean>;
  /** Wait until the screen satisfies `test`; throws with the screen after `timeoutMs`. */
  waitFor(test: (screen: string) => boolean, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

/** Start `command` in a new tmux session of a fixed size with `env` set. */
export async function openTmux(
  name: string,
  command: string[],
  env: Record<string, string>,
): Promise<TmuxPane> {
  const setEnv = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  await run('tmux', ['new-session', '-d', '-s', name, '-x', '200', '-y', '50', ...setEnv, ...command]);
  // Keep the pane after the program exits, so its last screen can still be read.
  await run('tmux', ['set-option', '-t', name, 'remain-on-exit', 'on']);
  const pane: TmuxPane = {
    async type(text, enter = true) {
      await run('tmux', ['send-keys', '-t', name, '-l', text]);
      if (enter) await run('tmux', ['send-keys', '-t', name, 'Enter']);
    },
    async key(key) {
      await run('tmux', ['send-keys', '-t', name, key]);
    },
    async screen() {
      return (await run('tmux', ['capture-pane', '-p', '-t', name, '-S', '-500'])).stdout;
    },
    async exited() {
      return (await run('tmux', ['display-message', '-p', '-t', name, '#{pane_dead}'])).stdout.trim() === '1';
    },
    async waitFor(test, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const screen = await pane.screen();
        if (test(screen)) return screen;
        if (Date.now() > until) throw new Error(`tmux ${name}: timed out; the screen:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      await run('tmux', ['kill-session', '-t', name]).catch(() => {});
    },
  };
  return pane;
}
