import { createInterface } from 'node:readline/promises';
import { type CliOutput, printError } from '../cli-output.js';
import type { HostConnection } from '../host-connection.js';
import { sendMessage } from './send.js';
import { fetchStatus } from './status.js';

/**
 * `openlegion chat [agent]`: a minimal REPL. `/agent NAME` switches agent, `/quit` (or Ctrl-D) leaves.
 * The full REPL (history, multi-line, slash commands) is a later issue.
 */
export async function chatRepl(
  host: HostConnection,
  agent: string | undefined,
  output: CliOutput,
): Promise<number> {
  const status = await fetchStatus(host);
  const agents = status.agents.map((info) => info.name);
  let current = agent ?? agents[0] ?? '';
  if (!agents.includes(current)) {
    output.err(`openlegion: no agent "${current}" in mesh ${status.mesh}; agents: ${agents.join(', ')}\n`);
    return 1;
  }
  output.out(
    `chatting with ${current} (agents: ${agents.join(', ')}; /agent NAME to switch, /quit to leave)\n`,
  );
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
  const prompt = () => {
    rl.setPrompt(`${current}> `);
    rl.prompt();
  };
  prompt();
  try {
    // The async iterator buffers lines typed (or piped) while a reply is still streaming.
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === '/quit' || line === '/exit') break;
      if (line.startsWith('/agent')) {
        const next = line.slice('/agent'.length).trim();
        if (agents.includes(next)) current = next;
        else output.err(`no agent "${next}"; agents: ${agents.join(', ')}\n`);
      } else if (line) {
        try {
          await sendMessage(host, current, line, output);
        } catch (error) {
          printError(output, error);
        }
      }
      prompt();
    }
  } finally {
    rl.close();
  }
  return 0;
}
