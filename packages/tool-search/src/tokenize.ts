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

enum Kind {
  Separator = 0,
  Lower = 1,
  Upper = 2,
  Digit = 3,
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u

function kindOf(code: number, text: string, at: number): Kind {
  if (code >= 97 && code <= 122) return Kind.Lower
  if (code >= 65 && code <= 90) return Kind.Upper
  if (code >= 48 && code <= 57) return Kind.Digit
  if (code < 128) return Kind.Separator
  // Non-ASCII letters have no case boundaries worth splitting on here; they form words whole.
  return LETTER_OR_DIGIT.test(text[at] ?? '') ? Kind.Lower : Kind.Separator
}

/**
 * Splits text into lowercase words without dropping or stemming any: `getHTTPResponse_v2` gives
 * `get`, `http`, `response`, `v2`. A single letter beside digits stays joined to them (`v2`,
 * `s3`, `x509`, `3d`), since apart they mean nothing; longer runs split (`base64` → `base 64`).
 */
export function splitWords(text: string, into: string[] = []): string[] {
  return scanWords(text, into, null, null)
}

type Stem = (word: string) => string

/**
 * The one pass behind `splitWords` and the tokenizers: each word found is lowercased, dropped if a
 * stop word, stemmed and pushed, so no intermediate array is built and trimmed.
 */
function scanWords(
  text: string,
  into: string[],
  stop: ReadonlySet<string> | null,
  stem: Stem | null,
): string[] {
  const length = text.length
  let start = -1
  let previous = Kind.Separator
  for (let i = 0; i <= length; i++) {
    const kind = i < length ? kindOf(text.charCodeAt(i), text, i) : Kind.Separator
    if (kind === Kind.Separator) {
      if (start >= 0 && i > start) pushWord(into, text.slice(start, i), stop, stem)
      start = -1
    } else if (start < 0) {
      start = i
    } else if (kind === Kind.Upper && previous === Kind.Lower) {
      pushWord(into, text.slice(start, i), stop, stem)
      start = i
    } else if (
      kind === Kind.Lower &&
      previous === Kind.Upper &&
      i - start >= 2 &&
      kindOf(text.charCodeAt(i - 2), text, i - 2) === Kind.Upper &&
      !isAcronymPlural(text, i)
    ) {
      // The end of an acronym: "HTTPResponse" splits before the "R" that starts "Response".
      pushWord(into, text.slice(start, i - 1), stop, stem)
      start = i - 1
    } else if ((kind === Kind.Digit) !== (previous === Kind.Digit)) {
      if (!joinsDigits(text, start, i, kind)) {
        pushWord(into, text.slice(start, i), stop, stem)
        start = i
      }
    }
    previous = kind
  }
  return into
}

function pushWord(
  into: string[],
  slice: string,
  stop: ReadonlySet<string> | null,
  stem: Stem | null,
): void {
  const word = slice.toLowerCase()
  if (stop?.has(word)) return
  into.push(stem === null ? word : stem(word))
}

/** A lone "s" after capitals ("IDs", "URLs") pluralises the acronym rather than starting a word. */
function isAcronymPlural(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 115) return false
  const next = at + 1 < text.length ? kindOf(text.charCodeAt(at + 1), text, at + 1) : Kind.Separator
  return next !== Kind.Lower
}

/** Whether a letter/digit boundary at `at` is kept inside one word (a lone letter by digits). */
function joinsDigits(text: string, start: number, at: number, kind: Kind): boolean {
  if (kind === Kind.Digit) {
    // letters → digits: join when the letters so far are a single letter ("v2", "x509").
    return at - start === 1
  }
  // digits → letters: join when exactly one letter follows before the word ends ("3d").
  const next = at + 1 < text.length ? kindOf(text.charCodeAt(at + 1), text, at + 1) : Kind.Separator
  return next === Kind.Separator || next === Kind.Digit
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

/** A tokenizer with other settings than the default; the keyword tuning script compares them. */
export function createTokenizer(options: TokenizerOptions = {}): (text: string) => string[] {
  const stop = options.stopWords ?? STOP_WORDS
  const stemming = options.stemming ?? DEFAULT_STEMMING
  const stem = stemming === 'light' ? stemLight : stemming === 'plural' ? stemPlural : null
  return (text) => scanWords(text, [], stop, stem)
}

/** Measured on the development data (docs/tool-search.md): plural folding helps, more does not. */
export const DEFAULT_STEMMING: Stemming = 'plural'

/** The words a query or a tool field is indexed under. */
export const tokenize: (text: string) => string[] = createTokenizer()
