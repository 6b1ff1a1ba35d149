import { createInterface, type Interface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { CliOutput } from '../cli-output.js';
import { printError } from '../cli-output.js';
import { fetchStatus } from '../commands/status.js';
import type { HostConnection } from '../host-connection.js';
import { REPL_COMMANDS as CORE_COMMANDS, say } from './repl-commands.js';
import { appendHistory, HISTORY_LINES, historyFile, loadHistory } from './repl-history.js';
import { MESH_REPL_COMMANDS, offerNewApprovals } from './repl-mesh-commands.js';
import { knownAgent, type ReplSession } from './repl-session.js';

const REPL_COMMANDS = [...CORE_COMMANDS, ...MESH_REPL_COMMANDS];

/**
 * Commands that run at once while a turn streams: those that act on it, the lane it runs in, and
 * the approvals a tool call of that very turn may be waiting for.
 */
const ACTS_ON_RUNNING_TURN = /^\/(steer|interrupt|queue|approvals|approve|reject)(\s|$)/;

/** A second Ctrl-C within this long leaves the REPL. */
const SECOND_INTERRUPT_MS = 2_000;

export interface ReplOptions {
  input?: Readable;
  /** Whether input is a terminal (prompts, completion, arrow-key history); piped input is not. */
  terminal?: boolean;
}

/**
 * `openlegion chat [agent]`: talk to every agent from one prompt. A line goes to the current
 * agent; `@NAME message` to another; slash commands steer the mesh (`/help` lists them). Ctrl-C
 * stops the running turn; a second Ctrl-C leaves. History is kept per mesh in its data dir.
 */
export async function runRepl(
  host: HostConnection,
  agent: string | undefined,
  output: CliOutput,
  options: ReplOptions = {},
): Promise<number> {
  const agents = (await fetchStatus(host)).agents;
  const session: ReplSession = {
    host,
    output,
    agents,
    current: agent ?? agents[0]?.name ?? '',
    conversations: new Map(),
    transcript: [],
    offeredApprovals: new Set(),
    recalls: new Map(),
    turn: undefined,
  };
  if (!knownAgent(session, session.current)) return 1;
  const names = () => session.agents.map((info) => info.name);
  output.out(
    `chatting with ${session.current} (agents: ${names().join(', ')}; @NAME message, /use NAME, /help, /quit)\n`,
  );

  // Before the line reader exists: lines piped in while this waits would find no reader.
  await offerNewApprovals(session);
  const terminal = options.terminal ?? Boolean(process.stdin.isTTY);
  const file = historyFile(host.dataDir);
  const rl = createInterface({
    input: options.input ?? process.stdin,
    output: process.stdout,
    terminal,
    history: terminal ? loadHistory(file) : [],
    historySize: HISTORY_LINES,
    completer: (line: string) => complete(line, names()),
  });
  const leave = watchInterrupts(rl, session);
  const prompt = () => {
    rl.setPrompt(`${session.current}> `);
    rl.prompt();
  };
  prompt();
  // Lines run one after another, in the order given (a piped script keeps its order). `/steer` and
  // `/interrupt` typed while a turn streams act on it at once instead of waiting for it to end.
  let work = Promise.resolve();
  let leaving = false;
  const inTurn = (line: string) => {
    work = work.then(async () => {
      if (leaving || leave.requested) return;
      if (line) {
        await handleLine(session, line);
        await offerNewApprovals(session);
      }
      if (!leaving && !leave.requested) prompt();
    });
  };
  try {
    for await (const raw of rl) {
      const line = raw.trim();
      if (line === '/quit' || line === '/exit') break;
      if (line) appendHistory(file, line);
      if (session.turn && ACTS_ON_RUNNING_TURN.test(line)) {
        await handleLine(session, line);
        // A steer the agent could not take mid-turn runs after the turn: its answer came after the
        // turn's prompt, so show the prompt again.
        if (!session.turn && !leave.requested) prompt();
      } else inTurn(line);
      if (leave.requested) break;
    }
    await work;
  } finally {
    leaving = true;
    leave.dispose();
    rl.close();
  }
  return 0;
}

async function handleLine(session: ReplSession, line: string): Promise<void> {
  try {
    if (line.startsWith('@')) {
      const [target = '', ...words] = line.slice(1).split(/\s+/);
      const agent = knownAgent(session, target);
      if (agent && words.length > 0) await say(session, agent, words.join(' '));
      return;
    }
    if (!line.startsWith('/')) return void (await say(session, session.current, line));
    const [name = '', ...words] = line.slice(1).split(/\s+/);
    if (name === 'help') return printHelp(session);
    const command = REPL_COMMANDS.find((candidate) => candidate.name === (name === 'agent' ? 'use' : name));
    if (!command) {
      session.output.err(
        `unknown command /${name}; commands: ${['help', 'quit', ...REPL_COMMANDS.map((c) => c.name)].map((c) => `/${c}`).join(', ')}\n`,
      );
      return;
    }
    await command.run(session, words.join(' '));
  } catch (error) {
    printError(session.output, error);
  }
}

function printHelp(session: ReplSession): void {
  const rows = [
    ['message', 'send to the current agent'],
    ['@NAME message', 'send to another agent'],
    ...REPL_COMMANDS.map((command) => [command.usage, command.description]),
    ['/help', 'this list'],
    ['/quit', 'leave (Ctrl-D too)'],
  ];
  const width = Math.max(...rows.map(([usage]) => (usage ?? '').length));
  for (const [usage = '', description = ''] of rows)
    session.output.out(`  ${usage.padEnd(width)}  ${description}\n`);
}

/** Tab completion of commands, `@agent` and the agent after `/use`, `/steer`, `/restart`, `/subagents`. */
export function complete(line: string, agents: string[]): [string[], string] {
  const atAgent = /^@(\S*)$/.exec(line);
  if (atAgent)
    return [agents.filter((name) => name.startsWith(atAgent[1] ?? '')).map((name) => `@${name} `), line];
  const afterCommand = /^\/(use|agent|steer|restart|interrupt|queue|subagents)\s+(\S*)$/.exec(line);
  if (afterCommand) {
    const partial = afterCommand[2] ?? '';
    return [
      agents
        .filter((name) => name.startsWith(partial))
        .map((name) => `${line.slice(0, line.length - partial.length)}${name} `),
      line,
    ];
  }
  if (/^\/\S*$/.test(line)) {
    const commands = ['help', 'quit', ...REPL_COMMANDS.map((command) => command.name)].map(
      (name) => `/${name}`,
    );
    return [commands.filter((command) => command.startsWith(line)), line];
  }
  return [[], line];
}

/** Ctrl-C stops the running turn; at the prompt, a second one within two seconds leaves. */
function watchInterrupts(rl: Interface, session: ReplSession): { requested: boolean; dispose: () => void } {
  const state = { requested: false, dispose: () => {} };
  let lastAt = 0;
  const onInterrupt = () => {
    if (session.turn) {
      session.turn.abort();
      return;
    }
    const now = Date.now();
    if (now - lastAt < SECOND_INTERRUPT_MS) {
      state.requested = true;
      rl.close();
      return;
    }
    lastAt = now;
    session.output.err('\n(press Ctrl-C again to leave)\n');
    rl.prompt();
  };
  rl.on('SIGINT', onInterrupt);
  // Piped input has no terminal to raise SIGINT on the interface: listen on the process.
  process.on('SIGINT', onInterrupt);
  state.dispose = () => {
    rl.off('SIGINT', onInterrupt);
    process.off('SIGINT', onInterrupt);
  };
  return state;
}
