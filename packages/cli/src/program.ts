import { LANE_MODES, type LaneMode } from '@openlegion/protocol';
import { Command, CommanderError, Option } from 'commander';
import { type CliOutput, printError, processOutput } from './cli-output.js';
import { addExamples } from './command-examples.js';
import { type CommandKit, configOption, DEFAULT_CONFIG } from './command-kit.js';
import { registerApprovalCommands } from './commands/approvals.js';
import { printChannelStatus, registerChannelsCommands } from './commands/channels.js';
import { printConfigSchema, validateConfig } from './commands/config.js';
import { registerCronCommands } from './commands/cron.js';
import { registerInitCommand } from './commands/init.js';
import { registerInstructionsCommand } from './commands/instructions.js';
import { registerK8sCommands } from './commands/k8s.js';
import { registerLcmCommands } from './commands/lcm.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerMemoryCommands } from './commands/memory.js';
import { registerMeshCommands } from './commands/mesh-commands.js';
import { registerPubsubCommands } from './commands/pubsub.js';
import { registerRestartCommand } from './commands/restart.js';
import { sendMessage } from './commands/send.js';
import { registerSkillsCommands } from './commands/skills.js';
import { registerSpawnCommand } from './commands/spawn.js';
import { fetchStatus, printStatus } from './commands/status.js';
import { stopMesh } from './commands/stop.js';
import { registerSubagentsCommand } from './commands/subagents.js';
import { registerTelegramCommands } from './commands/telegram.js';
import { registerVaultCommands } from './commands/vault.js';
import { registerWorkflowCommands } from './commands/workflow.js';
import { exitCodeOf } from './exit-code.js';
import { connectToHost } from './host-connection.js';
import { runRepl } from './repl/repl.js';
import { CLI_VERSION } from './version.js';

/** Build the `openlegion` command tree. Each action resolves to the process exit code. */
export function buildProgram(output: CliOutput, setExitCode: (code: number) => void): Command {
  const program = new Command('openlegion')
    .description('A fleet of AI agents, each in its own container, coordinated by one trusted host.')
    .version(CLI_VERSION)
    .configureOutput({ writeOut: output.out, writeErr: output.err })
    .exitOverride();
  const run = (action: () => Promise<number>) => async () => {
    try {
      setExitCode(await action());
    } catch (error) {
      printError(output, error);
      setExitCode(exitCodeOf(error));
    }
  };

  program
    .command('start')
    .description('start the host and every agent in mesh.yaml')
    .addOption(configOption())
    .addOption(new Option('--runtime <kind>', 'where agents run').choices(['docker', 'process', 'swarm']))
    .option('-d, --detach', 'run the host in the background and return once all agents are ready')
    .option(
      '--allow-unlocked-network',
      'start even if the network lockdown cannot be installed (agents then reach services bound on 0.0.0.0)',
    )
    .option('--detached-child', 'internal: the background host started by --detach')
    .action(
      (options: {
        config: string;
        runtime?: 'docker' | 'process' | 'swarm';
        detach?: boolean;
        detachedChild?: boolean;
        allowUnlockedNetwork?: boolean;
      }) =>
        run(async () => {
          // The host (fastify, dockerode, SQLite) loads only where it runs: other commands stay quick.
          const inSwarm = await (await import('./commands/start-swarm.js')).startInSwarmContainer(
            options,
            output,
          );
          if (inSwarm !== undefined) return inSwarm;
          if (options.detach)
            return (await import('./commands/start-detached.js')).startDetached(options, output);
          return (await import('./commands/start.js')).startMesh(options, output);
        })(),
    );

  program
    .command('stop')
    .description('stop the running host and all its agents')
    .addOption(configOption())
    .action((options: { config: string }) => run(() => stopMesh(options.config, output))());

  program
    .command('status')
    .description('show the host and its agents')
    .addOption(configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      run(async () => {
        const status = await fetchStatus(await connectToHost(options.config));
        if (options.json) output.out(`${JSON.stringify(status, null, 2)}\n`);
        else {
          printStatus(status, output);
          await printChannelStatus(options.config, output);
        }
        return 0;
      })(),
    );

  program
    .command('send')
    .description('send one message to an agent and stream its reply')
    .argument('<agent>', 'agent name')
    .argument('<message...>', 'the message')
    .addOption(configOption())
    .option('--conversation <id>', 'conversation id', 'default')
    .addOption(
      new Option(
        '--mode <mode>',
        'how the lane takes it: after the running turn, into it, merged, or instead of it',
      )
        .choices(LANE_MODES)
        .default('followup'),
    )
    .action(
      (agent: string, words: string[], options: { config: string; conversation: string; mode: LaneMode }) =>
        run(async () => {
          const host = await connectToHost(options.config);
          await sendMessage(host, agent, words.join(' '), output, {
            conversationId: options.conversation,
            mode: options.mode,
          });
          return 0;
        })(),
    );

  program
    .command('chat')
    .description('talk to an agent interactively')
    .argument('[agent]', 'agent name (default: the first agent)')
    .addOption(configOption())
    .action((agent: string | undefined, options: { config: string }) =>
      run(async () => runRepl(await connectToHost(options.config), agent, output))(),
    );

  const kit: CommandKit = { output, run, configOption };
  registerCronCommands(program, kit);
  registerRestartCommand(program, kit);
  registerInitCommand(program, kit);
  registerMemoryCommands(program, kit);
  registerLcmCommands(program, kit);
  registerMcpCommands(program, kit);
  registerSkillsCommands(program, kit);
  registerSubagentsCommand(program, kit);
  registerSpawnCommand(program, kit);
  registerInstructionsCommand(program, kit);
  registerTelegramCommands(program, kit);
  registerChannelsCommands(program, kit);
  registerWorkflowCommands(program, kit);
  registerApprovalCommands(program, kit);
  registerMeshCommands(program, kit);
  registerPubsubCommands(program, kit);
  registerVaultCommands(program, kit);
  registerK8sCommands(program, kit);

  const config = program.command('config').description('check and describe mesh.yaml');
  config
    .command('validate')
    .description('validate a mesh.yaml; every problem is printed as file:line:col field: message')
    .argument('[file]', 'the file', DEFAULT_CONFIG)
    .action((file: string) => run(() => validateConfig(file, output))());
  config
    .command('schema')
    .description('print the JSON Schema of mesh.yaml')
    .action(() => run(async () => printConfigSchema(output))());

  addExamples(program);
  return program;
}

/** Run the CLI with `argv` (as process.argv) and resolve to the exit code. */
export async function runCli(argv: string[], output: CliOutput = processOutput): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(output, (code) => {
    exitCode = code;
  });
  // `openlegion` alone opens the REPL.
  const args = argv.length <= 2 ? [...argv, 'chat'] : argv;
  try {
    await program.parseAsync(args);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    throw error;
  }
  return exitCode;
}
