import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createTokenizer, splitWords, stemLight, stemPlural, tokenize } from './tokenize.js'

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
