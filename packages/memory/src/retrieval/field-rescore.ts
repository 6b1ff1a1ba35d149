import type { Database } from '@openlegion/infra/sqlite';
import { averageColumnLengths } from '../store/column-lengths.js';
import { documentFrequencies, indexedCount } from '../store/term-stats.js';
import { ENGLISH_STOP_WORDS } from '../text/stop-words.js';
import { contentTerms, stem, words } from '../text/tokens.js';
import { type Bm25fField, bm25fScore, bm25Idf } from './bm25f.js';
import type { Candidate } from './candidate.js';
import { fuseScores } from './fusion.js';
import type { RetrievalConfig } from './retrieval-config.js';

export type FieldRescoreConfig = Pick<
  RetrievalConfig,
  | 'fieldScoring'
  | 'bm25fK1'
  | 'bm25fColumnB'
  | 'bm25ColumnWeights'
  | 'lengthPrior'
  | 'questionPenalty'
  | 'vectorWeight'
  | 'bm25Weight'
  | 'exactMatchBm25'
  | 'exactMatchFactor'
  | 'fusedMin'
>;

/**
 * Second stage over the candidates: their text signal is recomputed as BM25F over the three columns
 * (abstract, overview, content), each with its own length normalisation, scaled relative to the best
 * candidate and fused again with the vector score. FTS5's bm25() normalises by the whole row, so an
 * item whose overview carries long neighbouring context loses to one with short neighbours, and its
 * own text's length is penalised like a long document's (see docs/memory.md for what was measured).
 *
 * Two document priors go to `prior`, which the post-processing adds after the min-score cut (the
 * thresholds compare relevance without them): a length prior, lengthPrior · (ln(1 + content tokens)
 * − its mean over the candidates), centred so that it reorders without raising scores overall, minus
 * questionPenalty · (share of the content's sentences that are questions): a question asks for a
 * fact rather than holding one.
 *
 * With `fieldScoring: 'fts'`, or when the query has no words, the candidates are returned as they are.
 */
export function rescoreByFields(
  db: Database,
  query: string,
  candidates: readonly Candidate[],
  config: FieldRescoreConfig,
): Candidate[] {
  const queryTerms = [...new Set(contentTerms(query))];
  const averages = averageColumnLengths(db);
  if (config.fieldScoring !== 'bm25f' || queryTerms.length === 0 || !averages || candidates.length === 0) {
    return [...candidates];
  }
  const items = indexedCount(db);
  const frequencies = documentFrequencies(db, queryTerms);
  const weighted = queryTerms.map((term) => ({ term, idf: bm25Idf(items, frequencies.get(term) ?? 0) }));
  const wanted = { terms: new Set(queryTerms), initials: new Set(queryTerms.map((term) => term[0])) };
  const scored = candidates.map((candidate) => {
    const { abstract, overview, content } = candidate.item;
    const fields = [abstract, overview, content].map((text, column) =>
      field(
        text,
        wanted,
        averages[column] ?? 0,
        config.bm25ColumnWeights[column] ?? 1,
        config.bm25fColumnB[column] ?? 0,
      ),
    );
    return {
      candidate,
      raw: bm25fScore(weighted, fields, config.bm25fK1),
      contentTokens: words(content).length,
    };
  });
  const best = scored.reduce((max, entry) => Math.max(max, entry.raw), 0);
  const meanLogLength =
    scored.reduce((sum, entry) => sum + Math.log1p(entry.contentTokens), 0) / scored.length;
  return scored.map(({ candidate, raw, contentTokens }) => {
    const bm25Score = best > 0 ? raw / best : 0;
    const prior =
      config.lengthPrior * (Math.log1p(contentTokens) - meanLogLength) -
      config.questionPenalty * questionShare(candidate.item.content);
    return { ...candidate, bm25Score, score: fuseScores(candidate.vectorScore, bm25Score, config), prior };
  });
}

/** Most stems remembered before the memo starts over; a conversation's vocabulary fits many times. */
const MAX_MEMO_STEMS = 50_000;
const stems = new Map<string, string>();

/** The query's terms, and their first characters. */
interface WantedTerms {
  terms: ReadonlySet<string>;
  initials: ReadonlySet<string | undefined>;
}

/**
 * The field's counts of the query's terms only (stop words skipped, as the query's were), with
 * stems memoised: stemming every word of every candidate is most of this stage's cost otherwise.
 * A word whose first character starts no query term is skipped unstemmed: Porter stemming only
 * rewrites endings, so a stem begins with its word's first character.
 */
function field(
  text: string,
  wanted: WantedTerms,
  averageLength: number,
  weight: number,
  b: number,
): Bm25fField {
  const counts = new Map<string, number>();
  const all = words(text);
  for (const word of all) {
    if (!wanted.initials.has(word[0]) || ENGLISH_STOP_WORDS.has(word)) continue;
    let term = stems.get(word);
    if (term === undefined) {
      term = stem(word);
      if (stems.size >= MAX_MEMO_STEMS) stems.clear();
      stems.set(word, term);
    }
    if (wanted.terms.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return { counts, length: all.length, averageLength, weight, b };
}

const SENTENCE = /[^.!?]+[.!?]*/g;
const HAS_WORD = /[\p{L}\p{N}]/u;

/** Share of a text's sentences (split after . ! ?) that end with a question mark; 0 for no sentences. */
export function questionShare(text: string): number {
  const sentences = (text.match(SENTENCE) ?? []).filter((sentence) => HAS_WORD.test(sentence));
  if (sentences.length === 0) return 0;
  return sentences.filter((sentence) => sentence.trimEnd().endsWith('?')).length / sentences.length;
}
