import { parseArgs } from 'node:util';
import { type FakeLlm, startFakeLlm } from './fake-llm-server.js';
import { loadFakeLlmScript } from './script.js';

const USAGE = 'usage: fake-llm --script <file.yaml> [--port <n>] [--host <address>]';
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** What the CLI touches outside itself; the defaults are the real process. */
export interface FakeLlmCliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  signals: {
    once(signal: (typeof STOP_SIGNALS)[number], listener: () => void): unknown;
    off(signal: (typeof STOP_SIGNALS)[number], listener: () => void): unknown;
  };
  setExitCode: (code: number) => void;
}

const processIo: FakeLlmCliIo = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  signals: process,
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

interface CliOptions {
  script: string;
  port: number;
  host: string;
}

function parseCliOptions(argv: string[]): CliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      script: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.script === undefined) throw new Error('--script is required');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port: not a port: ${values.port}`);
  return { script: values.script, port, host: values.host };
}

function stopOnSignals(llm: FakeLlm, io: FakeLlmCliIo): void {
  const stop = (): void => {
    for (const signal of STOP_SIGNALS) io.signals.off(signal, stop);
    llm.close().catch((error: unknown) => {
      io.stderr(`fake-llm: close failed: ${String(error)}`);
      io.setExitCode(1);
    });
  };
  for (const signal of STOP_SIGNALS) io.signals.once(signal, stop);
}

/**
 * Runs the fake LLM as a process: `fake-llm --script f.yaml [--port N] [--host H]`.
 * Prints `fake-llm listening on <url>` once listening and stops on SIGTERM/SIGINT.
 * On a bad argument or script it reports to stderr, sets exit code 2 and returns undefined.
 */
export async function main(argv: string[], io: FakeLlmCliIo = processIo): Promise<FakeLlm | undefined> {
  let llm: FakeLlm;
  try {
    const options = parseCliOptions(argv);
    const script = await loadFakeLlmScript(options.script);
    llm = await startFakeLlm({ script, port: options.port, host: options.host });
  } catch (error) {
    io.stderr(`fake-llm: ${error instanceof Error ? error.message : String(error)}`);
    io.stderr(USAGE);
    io.setExitCode(2);
    return undefined;
  }
  stopOnSignals(llm, io);
  io.stdout(`fake-llm listening on ${llm.url}`);
  return llm;
}
