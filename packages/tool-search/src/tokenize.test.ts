import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  createTokenizer,
  splitWords,
  stemLight,
  stemPlural,
  tokenize,
  WordScanner,
} from './tokenize.js'

test('splits identifiers the way people read them', () => {
  const cases: [string, string[]][] = [
    ['get_weather_forecast', ['get', 'weather', 'forecast']],
    ['getWeatherForecast', ['get', 'weather', 'forecast']],
    ['getHTTPResponse', ['get', 'http', 'response']],
    ['HTTPServer', ['http', 'server']],
    ['parseURLs', ['parse', 'urls']],
    ['userIDs', ['user', 'ids']],
    ['math.factorial', ['math', 'factorial']],
    ['create-refund', ['create', 'refund']],
    ['api_v2', ['api', 'v2']],
    ['base64Encode', ['base', '64', 'encode']],
    ['uploadToS3', ['upload', 'to', 's3']],
    ['render3d', ['render', '3d']],
    ['sha256', ['sha', '256']],
    ['EmailByNylas', ['email', 'by', 'nylas']],
    ['  spaced   out\ttext\n', ['spaced', 'out', 'text']],
    ['café_crème', ['café', 'crème']],
    ['', []],
    ['__--..', []],
    // Mixed case and letters next to digits, where the single pass must lowercase and cut alike.
    ['ÉcoleNormale', ['école', 'normale']],
    ['HTTPServer2Go', ['http', 'server', '2', 'go']],
    ['a1b2c3', ['a1b', '2c', '3']],
    ['ABCs', ['abcs']],
    ['sIDs', ['s', 'ids']],
    ['Z9z', ['z9z']],
    ['9aZ', ['9', 'a', 'z']],
    ['fooBAR', ['foo', 'bar']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['naïve_Café', ['naïve', 'café']],
    ['getIDsFromURLs', ['get', 'ids', 'from', 'urls']],
  ]
  for (const [text, words] of cases) assert.deepEqual(splitWords(text), words, text)
})

test('drops stop words and folds plurals', () => {
  assert.deepEqual(tokenize('What are the orders of my customers?'), ['order', 'customer'])
  assert.deepEqual(tokenize('list_categories'), ['list', 'category'])
  assert.deepEqual(tokenize('the of and to'), [])
})

test('plural folding leaves non-plurals alone', () => {
  const cases: [string, string][] = [
    ['orders', 'order'],
    ['categories', 'category'],
    ['boxes', 'box'],
    ['matches', 'match'],
    ['addresses', 'address'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['class', 'class'],
    ['gas', 'gas'],
    ['bus', 'bus'],
    ['axes', 'ax'],
    ['wishes', 'wish'],
    ['buzzes', 'buzz'],
    ['horses', 'horse'],
    ['shoes', 'shoe'],
  ]
  for (const [word, stem] of cases) assert.equal(stemPlural(word), stem, word)
})

test('light stemming joins verb forms', () => {
  assert.equal(stemLight('encoding'), stemLight('encode'))
  assert.equal(stemLight('shipping'), 'ship')
  assert.equal(stemLight('created'), stemLight('create'))
  assert.equal(stemLight('calling'), 'call')
})

test('a tokenizer can keep every word and stem nothing', () => {
  const plain = createTokenizer({ stemming: 'none', stopWords: new Set() })
  assert.deepEqual(plain('The Orders'), ['the', 'orders'])
})

test('long and odd input stays bounded in time and output', () => {
  const words = tokenize('refund '.repeat(100_000))
  assert.equal(words.length, 100_000)
  assert.deepEqual(tokenize('\u0000\uD800\uFFFF💥 ok'), ['ok'])
})

/** Each word the scanner found in `text`, as written, with its hash. */
function scanned(scanner: WordScanner, text: string): [string, number][] {
  const count = scanner.scan(text)
  const w = scanner.words
  return Array.from({ length: count }, (_, i) => [
    text.slice(w[3 * i], w[3 * i + 1]),
    w[3 * i + 2]!,
  ])
}

test('the scanner gives where each word starts and ends, in the text as written', () => {
  const words = scanned(new WordScanner(), 'getHTTPResponse_v2 IDs')
  assert.deepEqual(
    words.map(([word]) => word),
    ['get', 'HTTP', 'Response', 'v2', 'IDs'],
  )
})

test("a word's hash depends on its characters only, wherever and however it was cut", () => {
  const scanner = new WordScanner()
  const hashes = new Map<string, number>()
  const texts = [
    'HTTPResponse',
    'Response HTTP',
    'xHTTP_Response',
    'a1Response2HTTP',
    'IDs',
    'sIDs',
  ]
  for (const text of texts) {
    for (const [word, hash] of scanned(scanner, text)) {
      assert.equal(hashes.get(word) ?? hash, hash, `${word} in ${text}`)
      hashes.set(word, hash)
    }
  }
  assert.equal(new Set(hashes.values()).size, hashes.size, 'different words, different hashes here')
})

test('a scanner lets go of the buffer one huge text needed', () => {
  const scanner = new WordScanner()
  assert.equal(scanner.scan('a '.repeat(100_000)), 100_000)
  assert.ok(scanner.words.length >= 300_000)
  scanner.trim()
  assert.ok(scanner.words.length < 1000)
})

test('a tokenizer says what one word becomes', () => {
  assert.equal(tokenize.term('Orders'), 'order')
  assert.equal(tokenize.term('THE'), null)
})
