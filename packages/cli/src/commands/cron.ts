import { type CronJobView, cronJobsAnswerSchema } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, requestDone, requestJson } from '../host-connection.js';

type JobView = CronJobView;

/** `openlegion cron list|pause|resume|run|rm`: the scheduled jobs of the running mesh. */
export function registerCronCommands(program: Command, kit: CommandKit): void {
  const cron = program
    .command('cron')
    .description('list and control scheduled jobs (mesh.yaml cron and agent jobs)');
  cron
    .command('list')
    .description('every job: schedule, next run, last result')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const host = await connectToHost(options.config);
        const { jobs } = await requestJson(host, 'GET', '/api/cron', cronJobsAnswerSchema);
        if (options.json) kit.output.out(`${JSON.stringify(jobs, null, 2)}\n`);
        else printJobs(jobs, kit);
        return 0;
      })(),
    );
  for (const [name, description] of [
    ['pause', 'stop a job from running until resumed'],
    ['resume', 'let a paused job run again'],
    ['run', 'run a job now, outside its schedule'],
  ] as const) {
    cron
      .command(name)
      .description(description)
      .argument('<id>', 'job id, as `cron list` shows it (e.g. researcher#0)')
      .addOption(kit.configOption())
      .action((id: string, options: { config: string }) =>
        kit.run(async () => {
          const host = await connectToHost(options.config);
          await requestDone(host, 'POST', `/api/cron/${encodeURIComponent(id)}/${name}`);
          kit.output.out(`${id}: ${name === 'run' ? 'handed to its agent' : `${name}d`}\n`);
          return 0;
        })(),
      );
  }
  cron
    .command('rm')
    .description('remove a job (a mesh.yaml job returns at the next start unless removed from the file)')
    .argument('<id>', 'job id')
    .addOption(kit.configOption())
    .action((id: string, options: { config: string }) =>
      kit.run(async () => {
        await requestDone(
          await connectToHost(options.config),
          'DELETE',
          `/api/cron/${encodeURIComponent(id)}`,
        );
        kit.output.out(`${id}: removed\n`);
        return 0;
      })(),
    );
}

function printJobs(jobs: JobView[], kit: CommandKit): void {
  if (jobs.length === 0) {
    kit.output.out('no cron jobs\n');
    return;
  }
  const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z'));
  for (const job of jobs) {
    const flags = [job.heartbeat ? 'heartbeat' : '', job.paused ? 'paused' : ''].filter(Boolean).join(',');
    kit.output.out(
      `${job.id}  ${job.agent}  "${job.schedule}"${job.timezone ? ` ${job.timezone}` : ''}${flags ? ` [${flags}]` : ''}  next ${when(job.nextRunAt)}  runs ${job.runs}\n`,
    );
    if (job.lastResult) kit.output.out(`    last: ${job.lastResult.split('\n')[0]}\n`);
  }
}
