// The process-wide word-vector table, read from the binary file built at setup.
import { readFileSync } from 'node:fs'
import { EmbedderError } from '../types.js'
import { HEADER_BYTES, layout, MAGIC } from './word-vectors-format.js'

export const BUILD_COMMAND = 'node packages/tool-search/scripts/build-word-vectors.mjs'

const encoder = new TextEncoder()

export class WordVectors {
  readonly count: number
  readonly dims: number
  /** The file's size: this table's whole memory. */
  readonly bytes: number
  private readonly scales: Float32Array
  private readonly offsets: Uint32Array
  private readonly sorted: Uint32Array
  private readonly vectors: Int8Array
  private readonly vocab: Uint8Array

  private constructor(count: number, dims: number, vocabBytes: number, file: Uint8Array) {
    const at = layout(count, dims, vocabBytes)
    const buffer = file.buffer
    const base = file.byteOffset
    this.count = count
    this.dims = dims
    this.bytes = file.length
    this.scales = new Float32Array(buffer, base + at.scales, count)
    this.offsets = new Uint32Array(buffer, base + at.offsets, count + 1)
    this.sorted = new Uint32Array(buffer, base + at.sorted, count)
    this.vectors = new Int8Array(buffer, base + at.vectors, count * dims)
    this.vocab = new Uint8Array(buffer, base + at.vocab, vocabBytes)
    if (this.offsets[count] !== vocabBytes) throw corrupt('its vocabulary index is damaged')
  }

  /** Reads and checks the file; a missing or damaged file names the command that rebuilds it. */
  static load(path: string): WordVectors {
    let file: Buffer
    try {
      file = readFileSync(path)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw new EmbedderError(
        `word vectors for semantic search are missing at ${path} (${code}); build them with \`${BUILD_COMMAND}\` (npm start and npm test run it)`,
      )
    }
    if (file.length < HEADER_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw corrupt(`${path} is not a word-vector file`)
    }
    const count = file.readUInt32LE(8)
    const dims = file.readUInt32LE(12)
    const vocabBytes = file.readUInt32LE(16)
    if (count === 0 || dims === 0 || file.length !== layout(count, dims, vocabBytes).total) {
      throw corrupt(`${path} is truncated or damaged`)
    }
    // Typed views need 4-byte alignment; a small Buffer may sit anywhere in a shared pool.
    const aligned = file.byteOffset % 4 === 0 ? file : new Uint8Array(file)
    return new WordVectors(count, dims, vocabBytes, aligned)
  }

  /** The word's row (its frequency rank: 0 is the most common word), or -1. */
  lookup(word: string): number {
    const key = encoder.encode(word)
    let lo = 0
    let hi = this.count - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const row = this.sorted[mid] as number
      const order = this.compare(row, key)
      if (order === 0) return row
      if (order < 0) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }

  /** Adds `weight` times row `row` to `into` at `offset`. */
  addTo(into: Float32Array, row: number, weight: number, offset = 0): void {
    const scale = (this.scales[row] as number) * weight
    const base = row * this.dims
    for (let i = 0; i < this.dims; i++) {
      into[offset + i] = (into[offset + i] as number) + (this.vectors[base + i] as number) * scale
    }
  }

  vector(row: number): Float32Array {
    const out = new Float32Array(this.dims)
    this.addTo(out, row, 1)
    return out
  }

  private compare(row: number, key: Uint8Array): number {
    const start = this.offsets[row] as number
    const length = (this.offsets[row + 1] as number) - start
    const shared = Math.min(length, key.length)
    for (let i = 0; i < shared; i++) {
      const diff = (this.vocab[start + i] as number) - (key[i] as number)
      if (diff !== 0) return diff
    }
    return length - key.length
  }
}

function corrupt(detail: string): EmbedderError {
  return new EmbedderError(`word vectors: ${detail}; rebuild them with \`${BUILD_COMMAND}\``)
}
