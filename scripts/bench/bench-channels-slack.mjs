// The Slack part of `pnpm bench channels`: the real SlackChannel (Bolt, Socket Mode) against
// testkit's fake Slack on loopback, with an in-process mesh whose agent answers its first token
// FIRST_TOKEN_MS after it is asked. Per round: a DM arrives over the socket (in) → the channel
// takes it in (spool) → the agent's first token → chat.postMessage reaches the fake (out).
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
  const { SlackChannel, SLACK_FEATURE, SLACK_MIGRATIONS } = await import(dist('channels/dist/index.js'));
  const { startFakeSlack, readyAgentInfo } = await import(dist('testkit/dist/index.js'));
  const { openDatabase, migrate } = await import(dist('infra/dist/sqlite/index.js'));
  const { pino } = await import(path.join(ROOT, 'packages/channels/node_modules/pino/pino.js'));
  const slack = await startFakeSlack();
  const db = openDatabase(':memory:');
  migrate(db, [{ feature: SLACK_FEATURE, steps: SLACK_MIGRATIONS }]);
  /** When the agent yielded its first token, and when it was asked, by message. */
  const tokens = new Map();
  const mesh = {
    agents: () => [readyAgentInfo('bench')],
    async *chat(_agent, request) {
      const askedAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, FIRST_TOKEN_MS));
      tokens.set(request.message, { askedAt, tokenAt: performance.now() });
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
  const channel = new SlackChannel({
    botToken: slack.botToken,
    appToken: slack.appToken,
    apiRoot: slack.url,
    db,
    logger: pino({ level: 'silent' }),
  });
  await channel.start(mesh);
  // One person (one DM) per round: Slack allows about one write a second per conversation, and the
  // channel paces a conversation's writes to it; that pacing is not what this measures.
  const people = Array.from({ length: rounds + 3 }, (_, index) => ({ id: `U0BENCH${index}` }));
  for (const person of people) channel.users.pair(person.id, 'bench', Date.now());
  const inToOut = [];
  const firstToken = [];
  const overhead = [];
  try {
    for (let round = 0; round < rounds + 3; round += 1) {
      const text = `bench ${round}`;
      const person = people[round];
      const dm = slack.dmOf(person);
      const before = slack.messagesIn(dm).length;
      const sentAt = performance.now();
      slack.sendDm(person, text);
      await slack.waitFor(() => slack.messagesIn(dm).length > before, 10_000);
      const outAt = performance.now();
      // Let the reply's last write land before the next round starts.
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (round < 3) continue; // warm-up: JIT, the first SQLite statements
      const token = tokens.get(text);
      const agentMs = token.tokenAt - token.askedAt;
      inToOut.push(outAt - sentAt);
      firstToken.push(agentMs);
      overhead.push(outAt - sentAt - agentMs);
    }
  } finally {
    await channel.stop();
    await slack.close();
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
