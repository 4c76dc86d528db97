// Turns names and prose into the words people would search with: identifiers split the way they
// are read (snake_case, camelCase with acronyms, dots, hyphens, letter/digit boundaries),
// lowercased, stop words dropped and plurals folded.

/**
 * Words too common in requests and tool descriptions to tell tools apart. Deliberately short:
 * verbs such as "get" or "list" stay, since they do distinguish tools; BM25's idf weighs them.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a',
  'about',
  'all',
  'also',
  'am',
  'an',
  'and',
  'any',
  'are',
  'as',
  'at',
  'be',
  'been',
  'but',
  'by',
  'can',
  'could',
  'do',
  'does',
  'e',
  'eg',
  'etc',
  'for',
  'from',
  'g',
  'has',
  'have',
  'he',
  'her',
  'his',
  'how',
  'i',
  'ie',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'me',
  'my',
  'of',
  'on',
  'or',
  'our',
  'please',
  'she',
  'should',
  'so',
  'some',
  'such',
  'that',
  'the',
  'their',
  'them',
  'then',
  'there',
  'these',
  'they',
  'this',
  'those',
  'to',
  'us',
  'was',
  'we',
  'were',
  'what',
  'when',
  'where',
  'which',
  'who',
  'will',
  'with',
  'would',
  'you',
  'your',
])

const SEPARATOR = 0
const LOWER = 1
const UPPER = 2
const DIGIT = 3

/** The kind of each ASCII character; anything else below 128 separates words. */
const ASCII_KINDS = new Uint8Array(128)
for (let code = 0; code < 128; code++) {
  if (code >= 97 && code <= 122) ASCII_KINDS[code] = LOWER
  else if (code >= 65 && code <= 90) ASCII_KINDS[code] = UPPER
  else if (code >= 48 && code <= 57) ASCII_KINDS[code] = DIGIT
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u

function kindAt(text: string, at: number): number {
  const code = text.charCodeAt(at)
  if (code < 128) return ASCII_KINDS[code]!
  // Non-ASCII letters have no case boundaries worth splitting on here; they form words whole.
  return LETTER_OR_DIGIT.test(text[at] ?? '') ? LOWER : SEPARATOR
}

/** Buffer entries above which a scanner lets its buffer go after use: one huge text is not kept. */
const KEPT_WORDS = 1 << 16

/** FNV-1a over a word's code units, as `WordScanner` gives it with each word. */
const HASH_SEED = 0x811c9dc5
const HASH_PRIME = 0x01000193

/**
 * Finds where the words of a text start and end, without making a string: `getHTTPResponse_v2`
 * has the words `get`, `HTTP`, `Response`, `v2`. A single letter beside digits stays joined to
 * them (`v2`, `s3`, `x509`, `3d`), since apart they mean nothing; longer runs split (`base64` →
 * `base 64`). What a word becomes (lowercased, stemmed, dropped) is up to the caller; a hash of
 * each word's characters comes with it, made on the same pass, for callers that look words up.
 */
export class WordScanner {
  /**
   * The words of the last text scanned, as triples: word w is `text.slice(words[3w], words[3w +
   * 1])`, and `words[3w + 2]` is its hash.
   */
  words = new Int32Array(384)

  /** Scans `text` into `words` and returns how many it has. */
  scan(text: string): number {
    const length = text.length
    let count = 0
    let start = -1
    let previous = SEPARATOR
    // The hash of text[start, i), and of text[start, i - 1) for an acronym's end.
    let hash = HASH_SEED
    let hashBefore = HASH_SEED
    for (let i = 0; i <= length; i++) {
      const code = i < length ? text.charCodeAt(i) : 32
      const kind = code < 128 ? ASCII_KINDS[code]! : kindAt(text, i)
      if (kind === previous) {
        // Most characters: a word going on in the same kind, or more separators.
        if (kind !== SEPARATOR) {
          hashBefore = hash
          hash = Math.imul(hash ^ code, HASH_PRIME)
        }
        continue
      }
      if (kind === SEPARATOR) {
        if (start >= 0) count = this.push(count, start, i, hash)
        start = -1
        previous = kind
        continue
      }
      if (start < 0) {
        start = i
        hash = HASH_SEED
      } else if (kind === UPPER && previous === LOWER) {
        count = this.push(count, start, i, hash)
        start = i
        hash = HASH_SEED
      } else if (
        kind === LOWER &&
        previous === UPPER &&
        i - start >= 2 &&
        kindAt(text, i - 2) === UPPER &&
        !isAcronymPlural(text, i)
      ) {
        // The end of an acronym: "HTTPResponse" splits before the "R" that starts "Response".
        count = this.push(count, start, i - 1, hashBefore)
        start = i - 1
        hash = Math.imul(HASH_SEED ^ text.charCodeAt(i - 1), HASH_PRIME)
      } else if ((kind === DIGIT) !== (previous === DIGIT)) {
        if (!joinsDigits(text, start, i, kind)) {
          count = this.push(count, start, i, hash)
          start = i
          hash = HASH_SEED
        }
      }
      hashBefore = hash
      hash = Math.imul(hash ^ code, HASH_PRIME)
      previous = kind
    }
    return count
  }

  /** Lets a buffer grown for one huge text go. */
  trim(): void {
    if (this.words.length > KEPT_WORDS) this.words = new Int32Array(384)
  }

  private push(count: number, start: number, end: number, hash: number): number {
    const at = count * 3
    if (at + 3 > this.words.length) {
      const grown = new Int32Array(this.words.length * 2)
      grown.set(this.words)
      this.words = grown
    }
    this.words[at] = start
    this.words[at + 1] = end
    this.words[at + 2] = hash
    return count + 1
  }
}

/** A lone "s" after capitals ("IDs", "URLs") pluralises the acronym rather than starting a word. */
function isAcronymPlural(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 115) return false
  const next = at + 1 < text.length ? kindAt(text, at + 1) : SEPARATOR
  return next !== LOWER
}

/** Whether a letter/digit boundary at `at` is kept inside one word (a lone letter by digits). */
function joinsDigits(text: string, start: number, at: number, kind: number): boolean {
  if (kind === DIGIT) {
    // letters → digits: join when the letters so far are a single letter ("v2", "x509").
    return at - start === 1
  }
  // digits → letters: join when exactly one letter follows before the word ends ("3d").
  const next = at + 1 < text.length ? kindAt(text, at + 1) : SEPARATOR
  return next === SEPARATOR || next === DIGIT
}

// The string tokenizers share one scanner: a scan never runs inside another, since what a word
// becomes (`term`) never tokenizes.
const shared = new WordScanner()

/** Each word of `text`, as `term` makes it, pushed onto `into`; words `term` drops are skipped. */
function collect(text: string, into: string[], term: (word: string) => string | null): string[] {
  const count = shared.scan(text)
  const words = shared.words
  for (let w = 0; w < count; w++) {
    const word = term(text.slice(words[3 * w]!, words[3 * w + 1]!))
    if (word !== null) into.push(word)
  }
  shared.trim()
  return into
}

const lowercase = (word: string): string => word.toLowerCase()

/** Splits text into lowercase words (`WordScanner`) without dropping or stemming any. */
export function splitWords(text: string, into: string[] = []): string[] {
  return collect(text, into, lowercase)
}

export type Stemming = 'none' | 'plural' | 'light'

/** Folds plurals ("orders" → "order", "categories" → "category"), leaving "status" alone. */
export function stemPlural(word: string): string {
  const n = word.length
  if (n <= 3 || word.charCodeAt(n - 1) !== 115 /* s */) return word
  if (word.endsWith('ies') && n > 4) return `${word.slice(0, -3)}y`
  if (word.endsWith('sses')) return word.slice(0, -2)
  if (sibilantPlural(word, n)) return word.slice(0, -2)
  const before = word.charCodeAt(n - 2)
  // -ss, -us, -is (class, status, analysis) are not plurals.
  if (before === 115 || before === 117 || before === 105) return word
  return word.slice(0, -1)
}

/** "-xes", "-ches", "-shes", "-zzes": the "e" belongs to the plural ("boxes" → "box"). */
function sibilantPlural(word: string, n: number): boolean {
  if (word.charCodeAt(n - 2) !== 101 /* e */) return false
  const c = word.charCodeAt(n - 3)
  if (c === 120 /* x */) return true
  const b = word.charCodeAt(n - 4)
  if (c === 104 /* h */) return b === 99 /* c */ || b === 115 /* s */
  return c === 122 /* z */ && b === 122
}

/** Plurals, then "-ing" and "-ed" with the final "e" most of these verbs drop ("encoding"). */
export function stemLight(word: string): string {
  let w = stemPlural(word)
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3)
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2)
  else if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1)
  else return w
  const n = w.length
  const last = w.charCodeAt(n - 1)
  // "shipping" → "shipp" → "ship"; "calling" stays "call".
  if (n > 3 && last === w.charCodeAt(n - 2) && !'lsz'.includes(w[n - 1] ?? '')) {
    if (!'aeiou'.includes(w[n - 1] ?? '')) w = w.slice(0, -1)
  }
  return w
}

export interface TokenizerOptions {
  stemming?: Stemming
  stopWords?: ReadonlySet<string>
}

/** Text to the words it is indexed or searched under. */
export interface Tokenizer {
  (text: string): string[]
  /**
   * What one word a `WordScanner` found becomes: lowercased and stemmed, or null for a stop word.
   * A pure function of the word's characters, so an index may remember it per spelling.
   */
  readonly term: (word: string) => string | null
}

/** A tokenizer with other settings than the default; the keyword tuning script compares them. */
export function createTokenizer(options: TokenizerOptions = {}): Tokenizer {
  const stop = options.stopWords ?? STOP_WORDS
  const stemming = options.stemming ?? DEFAULT_STEMMING
  const stem = stemming === 'light' ? stemLight : stemming === 'plural' ? stemPlural : null
  const term = (word: string): string | null => {
    const lower = word.toLowerCase()
    if (stop.has(lower)) return null
    return stem === null ? lower : stem(lower)
  }
  return Object.assign((text: string) => collect(text, [], term), { term })
}

/** Measured on the development data (docs/tool-search.md): plural folding helps, more does not. */
export const DEFAULT_STEMMING: Stemming = 'plural'

/** The words a query or a tool field is indexed under. */
export const tokenize: Tokenizer = createTokenizer()
