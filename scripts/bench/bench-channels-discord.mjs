// The Discord part of `pnpm bench channels`: the real DiscordChannel (discord.js over the Gateway
// and REST) against testkit's fake Discord on loopback, with an in-process mesh whose agent answers
// its first token FIRST_TOKEN_MS after it is asked. Per round: MESSAGE_CREATE goes out on the
// Gateway (in) → the channel takes it in (dedupe, spool) → the agent's first token → the reply's
// POST /channels/ID/messages reaches the fake (out). Times are the fake's own (Date.now at arrival).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './bench-results.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(ROOT, 'packages', file);
const FIRST_TOKEN_MS = 20;

const percentile = (values, share) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];
};
const round1 = (value) => Math.round(value * 10) / 10;

export async function measure({ rounds }) {
  const { DiscordChannel, DISCORD_FEATURE, DISCORD_MIGRATIONS } = await import(
    dist('channels/dist/index.js')
  );
  const { startFakeDiscord, readyAgentInfo } = await import(dist('testkit/dist/index.js'));
  const { openDatabase, migrate } = await import(dist('infra/dist/sqlite/index.js'));
  const { pino } = await import(path.join(ROOT, 'packages/channels/node_modules/pino/pino.js'));
  const discord = await startFakeDiscord();
  const db = openDatabase(':memory:');
  migrate(db, [{ feature: DISCORD_FEATURE, steps: DISCORD_MIGRATIONS }]);
  /** When the agent was asked and yielded its first token, by message. */
  const tokens = new Map();
  const mesh = {
    agents: () => [readyAgentInfo('bench')],
    async *chat(_agent, request) {
      const askedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, FIRST_TOKEN_MS));
      tokens.set(request.message, { askedAt, tokenAt: Date.now() });
      yield { type: 'text_delta', text: `re: ${request.message}` };
      yield {
        type: 'done',
        conversation_id: request.conversation_id ?? 'bench',
        text: `re: ${request.message}`,
      };
    },
    interrupt: () => {},
    pendingApprovals: () => [],
    decideApproval: async () => {},
    onNotice: () => () => {},
  };
  const channel = new DiscordChannel({
    token: discord.token,
    apiRoot: discord.apiRoot,
    gatewayUrl: discord.gatewayUrl,
    db,
    logger: pino({ level: 'silent' }),
  });
  await channel.start(mesh);
  // One person (one DM) per round: the channel paces each conversation's writes (Discord's five
  // edits per five seconds); that pacing is not what this measures.
  const people = Array.from({ length: rounds + 3 }, (_, index) => ({
    id: `9100000000000${index}`,
    username: `p${index}`,
  }));
  for (const person of people) channel.users.pair(person.id, person.username, Date.now());
  const inToOut = [];
  const firstToken = [];
  const overhead = [];
  try {
    for (let round = 0; round < rounds + 3; round += 1) {
      const text = `bench ${round}`;
      const person = people[round];
      const dm = discord.dmChannelOf(person.id);
      const sentAt = Date.now();
      discord.sendDm(person, text);
      const post = await discord.waitFor(
        () =>
          discord.calls.find((call) => call.method === 'POST' && call.route === `/channels/${dm}/messages`),
        10_000,
      );
      // Let the reply's last write land before the next round starts.
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (round < 3) continue; // warm-up: JIT, the first SQLite statements, the REST connection
      const token = tokens.get(text);
      const agentMs = token.tokenAt - token.askedAt;
      inToOut.push(post.at - sentAt);
      firstToken.push(agentMs);
      overhead.push(post.at - sentAt - agentMs);
    }
  } finally {
    await channel.stop();
    await discord.close();
    db.close();
  }
  return {
    rounds,
    in_to_out_p50_ms: round1(median(inToOut)),
    in_to_out_p95_ms: round1(percentile(inToOut, 0.95)),
    agent_first_token_p50_ms: round1(median(firstToken)),
    overhead_p50_ms: round1(median(overhead)),
    overhead_p95_ms: round1(percentile(overhead, 0.95)),
  };
}
