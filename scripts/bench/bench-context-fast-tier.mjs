// The context benchmark's fast tier: an OpenAI-compatible server on loopback whose answers are
// derived from the text each call was actually sent, as a real flush or summary would be. A fact
// reaches a summary or a fact list only if the transcript (or the previous summary) the call was
// given holds it, so a compaction that drops a turn without summarising it, or a summariser that is
// not handed the previous summary, loses what was in it, and the benchmark sees that.
//
// The model it stands for is deliberately plain and stated here, since the result depends on it:
// - flush: one fact per user statement (a sentence, or a part of one joined by "and") that holds a
//   number or a name (a capitalised word after the first), one per file read (its path and first
//   line), one for the latest run of each command (✓/✗ lines among those shown); at most 25 per
//   call, as the flush prompt asks;
// - summary: USER PROFILE keeps the user's statements about themselves ("my name is", "I am", "I
//   prefer"…), CONVERSATION keeps the user's stated names and numbers first, then the newest work
//   (files read, last test run, the user's last request), each part at most 250 words (the prompt's
//   limit); oldest items leave first. Facts only from after the NOT YET SAVED marker.
import { createServer } from 'node:http';

const UNREAD_MARKER = '=== NOT YET SAVED ===';
const MAX_FACTS = 25;
const MAX_WORDS = 250;
const TAG = /^\[(user|assistant|assistant calls|tool result|system|developer)\] ?/;

/** Starts the server; `requests` records every call's parsed body, in arrival order. */
export async function startDerivingFastTier() {
  const requests = [];
  const server = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      requests.push({ body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      }
      const user = body.messages.at(-1)?.content ?? '';
      const answer = fastTierAnswer(typeof user === 'string' ? user : '');
      send(res, 200, {
        id: `chatcmpl-bench-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: answer },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      });
    } catch (error) {
      send(res, 500, { error: { message: `bench fast tier failed: ${String(error)}` } });
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** The answer to one fast-tier call, from the text of its user message alone. */
export function fastTierAnswer(user) {
  if (user.startsWith('Transcript:\n')) {
    return JSON.stringify({ facts: factsOf(entries(user.slice('Transcript:\n'.length))) });
  }
  if (user.startsWith('Current memory:\n')) return JSON.stringify(summaryOf(user));
  throw new Error(`unexpected fast-tier call: ${user.slice(0, 60)}`);
}

/** A transcript as entries `{ tag, text }`; a line without a tag continues the entry before it. */
function entries(transcript) {
  const list = [];
  for (const line of transcript.split('\n')) {
    if (line === UNREAD_MARKER) {
      list.push({ tag: 'marker', text: '' });
      continue;
    }
    const tag = TAG.exec(line);
    if (tag) list.push({ tag: tag[1], text: line.slice(tag[0].length) });
    else if (list.length > 0) list[list.length - 1].text += `\n${line}`;
  }
  return list;
}

/** Statements: sentences, split again at "and" and ";" (one fact each, as a model lists them). */
function sentences(text) {
  return text
    .split(/(?<=[.!?])\s+|\s+and\s+|;\s*/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

/** A sentence that states a number or names someone or something (a capitalised word after the first). */
const isRecord = (sentence) => /\d/.test(sentence) || /\s[A-Z][a-z]+/.test(sentence);
const isAboutUser = (sentence) => /\b(my name is|I am|I'm|I work|I prefer|I like|call me)\b/i.test(sentence);

function factsOf(list) {
  const facts = [];
  for (let i = 0; i < list.length; i++) {
    const { tag, text } = list[i];
    if (tag === 'user') {
      for (const sentence of sentences(text).filter(isRecord)) {
        facts.push({
          key: `user said: ${sentence.split(/\s+/).slice(0, 5).join(' ').toLowerCase()}`,
          value: sentence,
          category: isAboutUser(sentence) ? 'profile' : 'entities',
        });
      }
    } else if (tag === 'assistant calls') {
      const result = list[i + 1]?.tag === 'tool result' ? list[i + 1].text : '';
      const read = /read_file\(\{"path":"([^"]+)"\}\)/.exec(text);
      const command = /run_command\(\{"command":"([^"]+)"\}\)/.exec(text);
      if (read) {
        facts.push({
          key: `file ${read[1]}`,
          value: `${read[1]} begins: ${result.split('\n')[0].slice(0, 80)}`,
          category: 'entities',
        });
      } else if (command) {
        facts.push({ key: `last run of ${command[1]}`, value: testRun(result), category: 'events' });
      }
    }
  }
  return facts.slice(-MAX_FACTS);
}

function testRun(output) {
  const passed = (output.match(/^✓/gm) ?? []).length;
  const failed = (output.match(/^✗/gm) ?? []).length;
  return `${passed} passed, ${failed} failed among the lines shown`;
}

function summaryOf(user) {
  const profileStart = user.indexOf('USER PROFILE: ');
  const conversationStart = user.indexOf('\nCONVERSATION: ');
  const transcriptStart = user.indexOf('\n\nTranscript to fold in:\n');
  const previous = (text) => (text === '(nothing yet)' ? [] : text.split('\n').filter(Boolean));
  const profile = previous(user.slice(profileStart + 'USER PROFILE: '.length, conversationStart));
  const conversation = previous(user.slice(conversationStart + '\nCONVERSATION: '.length, transcriptStart));
  const list = entries(user.slice(transcriptStart + '\n\nTranscript to fold in:\n'.length));

  const records = conversation.filter((item) => item.startsWith('Stated: '));
  let work = conversation.filter((item) => !item.startsWith('Stated: '));
  for (const sentence of list
    .filter((entry) => entry.tag === 'user')
    .flatMap((entry) => sentences(entry.text))) {
    if (isAboutUser(sentence) && !profile.includes(sentence)) profile.push(sentence);
    const record = `Stated: ${sentence}`;
    if (isRecord(sentence) && !records.includes(record)) records.push(record);
  }
  const files = list
    .filter((entry) => entry.tag === 'assistant calls')
    .map((entry) => /read_file\(\{"path":"([^"]+)"\}\)/.exec(entry.text)?.[1])
    .filter(Boolean);
  if (files.length > 0) work.push(`Read ${files.slice(-20).join(', ')}.`);
  const runs = list.filter(
    (entry, i) => entry.tag === 'tool result' && /run_command/.test(list[i - 1]?.text ?? ''),
  );
  if (runs.length > 0) {
    work = work.filter((item) => !item.startsWith('Last test run: '));
    work.push(`Last test run: ${testRun(runs.at(-1).text)}.`);
  }
  const lastRequest = list.filter((entry) => entry.tag === 'user').at(-1)?.text;
  if (lastRequest) {
    work = work.filter((item) => !item.startsWith('Open request: '));
    work.push(`Open request: ${lastRequest.replace(/\s+/g, ' ').slice(0, 160)}`);
  }
  const unread = list.findIndex((entry) => entry.tag === 'marker');
  return {
    user_profile: newestWithin(profile, MAX_WORDS).join('\n'),
    // The user's stated names and numbers first; the work log gets what room is left, newest kept.
    conversation:
      [
        ...newestWithin(records, MAX_WORDS),
        ...newestWithin(work, MAX_WORDS - wordCount(newestWithin(records, MAX_WORDS))),
      ].join('\n') || 'Nothing to record yet.',
    facts: unread === -1 ? [] : factsOf(list.slice(unread + 1)),
  };
}

const wordCount = (items) => items.reduce((sum, item) => sum + item.split(/\s+/).length, 0);

/** The newest items (the list's tail) whose words fit `budget`, in their order. */
function newestWithin(items, budget) {
  const kept = [];
  let words = 0;
  for (const item of [...items].reverse()) {
    const count = item.split(/\s+/).length;
    if (words + count > budget) break;
    kept.unshift(item);
    words += count;
  }
  return kept;
}
