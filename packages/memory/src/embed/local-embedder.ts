import { ENGLISH_STOP_WORDS } from '../text/stop-words.js';
import { stem, words } from '../text/tokens.js';
import type { Embedder } from './embedder.js';
import { normalizeInPlace } from './embedder.js';
import { addHashedFeature } from './feature-hash.js';
import type { WordVectors } from './glove-table.js';

/** Hashed slots for the lexical part; 256 keeps KNN fast at 100k items with few collisions per text. */
export const DEFAULT_LOCAL_DIMENSIONS = 256;
/** Share of cosine similarity given to word vectors when they are mixed in. */
export const DEFAULT_WORD_VECTOR_SHARE = 0.5;
/** Smooth inverse frequency constant (Arora et al. 2017): frequent words weigh less. */
const SIF_A = 1e-3;
/** Zipf normaliser for a vocabulary of ~400k words: p(rank) ≈ 1 / (rank · H). */
const ZIPF_HARMONIC = 13.5;

const WORD_WEIGHT = 1;
/**
 * Word bigrams are off by default: full-text search already rewards items sharing the query's words,
 * and bigrams in the vector pulled it further towards that same signal. Off, the vector adds more to
 * hybrid search (LoCoMo, hybrid recall@1 / @10: tuning 0.414 / 0.769 → 0.420 / 0.772, held out
 * 0.403 / 0.762 → 0.406 / 0.766; docs/memory.md). Changing it changes the embedder's id, so stores
 * re-embed in the background.
 */
const DEFAULT_BIGRAM_WEIGHT = 0;
/** Per 3-gram; a word has several, so their sum must stay below the word's own weight. */
const DEFAULT_CHAR_GRAM_WEIGHT = 0.05;

export interface LocalEmbedderOptions {
  /** Slots of the hashed lexical part. */
  dimensions?: number;
  /** Word vectors to mix in (e.g. {@link loadWinkGlove}); the vector then grows by their length. */
  wordVectors?: WordVectors;
  /** 0..1, the weight of the word-vector part in the cosine. */
  wordVectorShare?: number;
  /** Weight of each word bigram (0, the default, turns them off). */
  bigramWeight?: number;
  /** Weight of each character 3-gram of a word (0 turns them off). */
  charGramWeight?: number;
}

/**
 * An offline, deterministic embedder: hashed stemmed words, optionally word bigrams, and character
 * 3-grams (for spelling variants), optionally concatenated with SIF-weighted averaged word vectors so that related
 * words ("cat", "pet") land near each other. Same text, same vector, on every machine.
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): Embedder {
  const hashed = options.dimensions ?? DEFAULT_LOCAL_DIMENSIONS;
  const wordVectors = options.wordVectors;
  const share = wordVectors ? (options.wordVectorShare ?? DEFAULT_WORD_VECTOR_SHARE) : 0;
  const dimensions = hashed + (wordVectors?.dimensions ?? 0);
  const weights = {
    bigram: options.bigramWeight ?? DEFAULT_BIGRAM_WEIGHT,
    charGram: options.charGramWeight ?? DEFAULT_CHAR_GRAM_WEIGHT,
  };
  const id = `local-hash-v1:${hashed}:${weights.bigram}:${weights.charGram}${wordVectors ? `+${wordVectors.id}@${share}` : ''}`;
  const embedOne = (text: string): Float32Array => {
    const vector = new Float32Array(dimensions);
    const lexical = normalizeInPlace(hashedFeatures(text, hashed, weights));
    const lexicalScale = Math.sqrt(1 - share);
    for (let i = 0; i < hashed; i++) vector[i] = (lexical[i] ?? 0) * lexicalScale;
    if (wordVectors) {
      const semantic = normalizeInPlace(averagedWordVector(text, wordVectors));
      const semanticScale = Math.sqrt(share);
      for (let i = 0; i < semantic.length; i++) vector[hashed + i] = (semantic[i] ?? 0) * semanticScale;
    }
    return normalizeInPlace(vector);
  };
  return {
    id,
    kind: 'local',
    dimensions,
    embed: async (texts) => texts.map(embedOne),
  };
}

/** Sublinear term counts of stemmed content words, their bigrams and character 3-grams, hashed. */
function hashedFeatures(
  text: string,
  dimensions: number,
  weights: { bigram: number; charGram: number },
): Float32Array {
  const vector = new Float32Array(dimensions);
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  const terms = words(text)
    .filter((word) => !ENGLISH_STOP_WORDS.has(word))
    .map(stem);
  terms.forEach((term, position) => {
    add(`w:${term}`, WORD_WEIGHT);
    const next = terms[position + 1];
    if (next !== undefined && weights.bigram > 0) add(`b:${term} ${next}`, weights.bigram);
    if (weights.charGram <= 0) return;
    const padded = `<${term}>`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, weights.charGram);
  });
  for (const [feature, weight] of counts) addHashedFeature(vector, feature, 1 + Math.log(weight));
  return vector;
}

/** Average of word vectors, each weighted a / (a + p(word)) by its corpus frequency rank. */
function averagedWordVector(text: string, table: WordVectors): Float32Array {
  const sum = new Float32Array(table.dimensions);
  for (const word of words(text)) {
    const vector = table.vector(word);
    const rank = table.rank(word);
    if (!vector || rank === undefined) continue;
    const weight = SIF_A / (SIF_A + 1 / (rank * ZIPF_HARMONIC));
    for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] ?? 0) + weight * (vector[i] ?? 0);
  }
  return sum;
}
