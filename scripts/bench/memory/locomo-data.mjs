// LoCoMo-shaped data: conversations of sessions of turns, and questions with evidence dia_ids.
import { readFileSync } from 'node:fs';

/** Every turn of a sample, in order, with its session's date. */
export function turnsOf(sample) {
  const conversation = sample.conversation;
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter(Boolean)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  return sessions.flatMap((session) =>
    (conversation[`session_${session}`] ?? []).map((turn) => ({
      diaId: turn.dia_id,
      speaker: turn.speaker,
      text: turn.text,
      caption: turn.blip_caption,
      date: conversation[`session_${session}_date_time`] ?? '',
      session,
    })),
  );
}

/** Questions retrieval is scored on: categories 1-4 with evidence. */
export function scoredQuestions(sample) {
  return (sample.qa ?? []).filter(
    (qa) => [1, 2, 3, 4].includes(qa.category) && Array.isArray(qa.evidence) && qa.evidence.length > 0,
  );
}

export function loadSamples(file) {
  const samples = JSON.parse(readFileSync(file, 'utf8'));
  if (!Array.isArray(samples)) throw new Error(`${file}: expected a JSON array of samples`);
  return samples;
}

/** Evidence recall@k: the share of a question's evidence ids among the first k retrieved. */
export function recallAt(retrieved, evidence, k) {
  const top = new Set(retrieved.slice(0, k));
  return evidence.filter((id) => top.has(id)).length / evidence.length;
}
