import { invalidJson } from './errors.js'

// `"__proto__":` as a key, written plainly or with JSON's \u escapes.
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/

/**
 * Parses a request body. A `__proto__` key is refused: harmless to JSON.parse, but one careless
 * Object.assign away from replacing an object's prototype.
 */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw invalidJson('The request body is empty; send a JSON object')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    const detail = error instanceof Error ? error.message : 'syntax error'
    throw invalidJson(`The request body is not valid JSON: ${detail.slice(0, 200)}`)
  }
  if (PROTO_KEY.test(text)) throw invalidJson('The request body must not use "__proto__" as a key')
  return value
}
