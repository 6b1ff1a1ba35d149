import {
  type MeshEvent,
  publishAnswerSchema,
  pubsubEventsAnswerSchema,
  subscriptionsAnswerSchema,
  topicPatternSchema,
  topicSchema,
} from '@openlegion/protocol';
import { type Command, InvalidArgumentError } from 'commander';
import type { CliOutput } from '../cli-output.js';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, type HostConnection, requestJson } from '../host-connection.js';

/** How often `tail --follow` asks for new events: the operator watching, not a hot path. */
const FOLLOW_INTERVAL_MS = 1_000;

/** `openlegion pubsub subscriptions | publish TOPIC JSON | tail [PATTERN]`: the mesh's pub/sub, as the operator. */
export function registerPubsubCommands(program: Command, kit: CommandKit): void {
  const pubsub = program.command('pubsub').description("the mesh's pub/sub, as the operator");
  pubsub
    .command('subscriptions')
    .description("every agent's subscriptions: pattern, delivery, last event taken")
    .addOption(kit.configOption())
    .action((options: { config: string }) =>
      kit.run(async () => {
        const host = await connectToHost(options.config);
        const { subscriptions } = await requestJson(
          host,
          'GET',
          '/api/pubsub/subscriptions',
          subscriptionsAnswerSchema,
        );
        if (subscriptions.length === 0) kit.output.out('no subscriptions\n');
        for (const s of subscriptions)
          kit.output.out(`${s.id}  ${s.agent}  ${s.pattern}  ${s.delivery}  cursor ${s.cursor}\n`);
        return 0;
      })(),
    );
  pubsub
    .command('publish')
    .description('publish an event as the operator (JSON payload, or plain text kept as a string)')
    .argument('<topic>')
    .argument('<payload>')
    .addOption(kit.configOption())
    .action((topic: string, payload: string, options: { config: string }) =>
      kit.run(async () => {
        const checked = topicSchema.safeParse(topic);
        if (!checked.success)
          throw new InvalidArgumentError(`topic "${topic}": ${checked.error.issues[0]?.message}`);
        const host = await connectToHost(options.config);
        const { event } = await requestJson<{ event: MeshEvent }>(
          host,
          'POST',
          '/api/pubsub/publish',
          publishAnswerSchema,
          {
            topic,
            payload: parsePayload(payload),
          },
        );
        kit.output.out(`published event ${event.id} on ${event.topic}\n`);
        return 0;
      })(),
    );
  pubsub
    .command('tail')
    .description('the newest events (of topics matching PATTERN), and with --follow the ones after')
    .argument('[pattern]', 'a topic pattern: research.*, research.#')
    .option('-n, --limit <n>', 'how many of the newest to show first', '20')
    .option('-f, --follow', 'keep printing new events until interrupted')
    .addOption(kit.configOption())
    .action((pattern: string | undefined, options: { config: string; limit: string; follow?: boolean }) =>
      kit.run(async () => {
        if (pattern !== undefined && !topicPatternSchema.safeParse(pattern).success)
          throw new InvalidArgumentError(`"${pattern}" is not a topic pattern (research.*, research.#)`);
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1_000)
          throw new InvalidArgumentError('--limit takes a whole number from 1 to 1000');
        const host = await connectToHost(options.config);
        let last = await printNewEvents(host, kit.output, pattern, limit, 0);
        while (options.follow) {
          await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
          last = await printNewEvents(host, kit.output, pattern, 1_000, last);
        }
        return 0;
      })(),
    );
}

/** Print the events after `after` among the newest `limit`; the id of the last one printed. */
async function printNewEvents(
  host: HostConnection,
  output: CliOutput,
  pattern: string | undefined,
  limit: number,
  after: number,
): Promise<number> {
  const query = new URLSearchParams({ limit: String(limit), ...(pattern ? { topic: pattern } : {}) });
  const { events } = await requestJson<{ events: MeshEvent[] }>(
    host,
    'GET',
    `/api/pubsub/events?${query}`,
    pubsubEventsAnswerSchema,
  );
  let last = after;
  for (const event of events) {
    if (event.id <= after) continue;
    const when = new Date(event.published_at).toISOString();
    output.out(
      `${event.id}  ${when}  ${event.topic}  ${event.published_by}  ${JSON.stringify(event.payload)}\n`,
    );
    last = event.id;
  }
  return last;
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // plain text is kept as a JSON string, as `blackboard set` does
  }
}
