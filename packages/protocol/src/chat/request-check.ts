// The building blocks both request validators share: the result type, first-problem rejection and
// the value checks that name the offending field with its path (`messages[2].content[0].type`).

export interface RequestProblem {
  /** `invalid_request`, `unknown_parameter`, `unknown_tool_type`, `duplicate_tool_type`... */
  code: string
  /** Says what is expected and what came, so the caller knows what to change. */
  message: string
  /** The offending field's path, or null when the body as a whole is wrong. */
  param: string | null
}

export type RequestCheck<T> = { ok: true; value: T } | { ok: false; problem: RequestProblem }

/**
 * Stops a validator at the first problem. Validators run hand-written checks that throw this and
 * `runCheck` turns it into a result, so it never escapes a validator.
 */
class Rejection {
  constructor(readonly problem: RequestProblem) {}
}

export function runCheck<T>(body: unknown, check: (body: unknown) => T): RequestCheck<T> {
  try {
    return { ok: true, value: check(body) }
  } catch (error) {
    if (error instanceof Rejection) return { ok: false, problem: error.problem }
    throw error
  }
}

export function reject(code: string, param: string | null, message: string): never {
  throw new Rejection({ code, param, message })
}

/** A tool type that may be listed once, listed again at `at` after `first`. */
export function rejectListedTwice(
  type: string,
  first: string,
  at: string,
  advice = 'list it once',
): never {
  reject(
    'duplicate_tool_type',
    `${at}.type`,
    `${type} is listed twice (${first} and ${at}); ${advice}.`,
  )
}

/** The path of `key` inside the field at `at` (the top level when `at` is empty). */
export function joinParam(at: string, key: string): string {
  return at === '' ? key : `${at}.${key}`
}

const SHOWN_CHARS = 40

/** A string quoted for an error message, cut when long. */
export function quote(text: string): string {
  return JSON.stringify(text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}...` : text)
}

/** A short description of a value for error messages; long strings are cut. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  switch (typeof value) {
    case 'string':
      return `the string ${quote(value)}`
    case 'number':
      return `the number ${value}`
    case 'boolean':
      return `${value}`
    case 'object':
      return 'an object'
    default:
      return `a ${typeof value}`
  }
}

/** Rejects `value` at `param` as `invalid_request`, saying what was expected and what came. */
export function invalid(param: string, expected: string, value: unknown): never {
  return reject(
    'invalid_request',
    param,
    `Invalid value for ${param}: expected ${expected}, got ${describeValue(value)}.`,
  )
}

interface Frame {
  value: object
  depth: number
  parent: Frame | undefined
  key: string | number
}

/** Longest path a problem names; a longer one (hostile keys or depth) is cut to an ancestor. */
const PARAM_MAX_CHARS = 256

function pathOf(frame: Frame): string {
  const segments: string[] = []
  for (let f: Frame | undefined = frame; f?.parent !== undefined; f = f.parent) {
    segments.push(typeof f.key === 'number' ? `[${f.key}]` : `.${f.key}`)
  }
  let path = ''
  for (const segment of segments.reverse()) {
    if (path !== '' && path.length + segment.length > PARAM_MAX_CHARS) break
    path += segment
  }
  return path.slice(1)
}

/**
 * Rejects a body whose objects and arrays nest deeper than `max` levels. Walks with an explicit
 * stack, so hostile nesting cannot exhaust the call stack here either.
 */
export function checkDepth(body: object, max: number): void {
  const stack: Frame[] = []
  const enter = (child: unknown, key: string | number, parent: Frame): void => {
    if (typeof child !== 'object' || child === null) return
    const frame: Frame = { value: child, depth: parent.depth + 1, parent, key }
    if (frame.depth > max) {
      const param = pathOf(frame)
      reject(
        'invalid_request',
        param,
        `The request nests objects and arrays more than ${max} levels deep (at ${param}); flatten it.`,
      )
    }
    stack.push(frame)
  }
  for (
    let frame: Frame | undefined = { value: body, depth: 1, parent: undefined, key: '' };
    frame !== undefined;
    frame = stack.pop()
  ) {
    const value = frame.value
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) enter(value[i], i, frame)
    } else {
      const record = value as Record<string, unknown>
      for (const key of Object.keys(record)) enter(record[key], key, frame)
    }
  }
}

/** Rejects a list or map with more than `max` entries. */
export function tooMany(param: string, max: number, count: number, what: string): never {
  return reject(
    'invalid_request',
    param,
    `Too many ${what} in ${param}: at most ${max}, got ${count}.`,
  )
}

/** The request body itself, which must be a JSON object. */
export function asBody(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) {
    reject(
      'invalid_request',
      null,
      `The request body must be a JSON object, got ${describeValue(body)}.`,
    )
  }
  return body
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function asRecord(value: unknown, param: string): Record<string, unknown> {
  if (!isRecord(value)) invalid(param, 'an object', value)
  return value
}

export function asArray(value: unknown, param: string): unknown[] {
  if (!Array.isArray(value)) invalid(param, 'an array', value)
  return value
}

/** Checks an array, then each item with `check`, given the item's path. */
export function checkEach(
  value: unknown,
  param: string,
  check: (item: unknown, at: string) => unknown,
): void {
  const items = asArray(value, param)
  for (let i = 0; i < items.length; i++) check(items[i], `${param}[${i}]`)
}

export function asString(value: unknown, param: string): string {
  if (typeof value !== 'string') invalid(param, 'a string', value)
  return value
}

export function asNonEmptyString(value: unknown, param: string): string {
  if (typeof value !== 'string' || value.length === 0) invalid(param, 'a non-empty string', value)
  return value
}

/** A string of `min` to `max` characters (UTF-16 code units, as JavaScript counts them). */
export function asStringOfLength(value: unknown, param: string, min: number, max: number): string {
  if (typeof value !== 'string' || value.length < min || value.length > max) {
    invalid(param, `a string of ${min} to ${max} characters`, value)
  }
  return value
}

export function asBoolean(value: unknown, param: string): boolean {
  if (typeof value !== 'boolean') invalid(param, 'a boolean', value)
  return value
}

export function asNumberIn(value: unknown, param: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    invalid(param, `a number from ${min} to ${max}`, value)
  }
  return value
}

export function asIntegerIn(value: unknown, param: string, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`
    invalid(param, `an integer ${range}`, value)
  }
  return value as number
}

export function asOneOf<T extends string>(value: unknown, param: string, options: readonly T[]): T {
  if (!(options as readonly unknown[]).includes(value)) {
    invalid(param, `one of ${options.map((o) => JSON.stringify(o)).join(', ')}`, value)
  }
  return value as T
}

/** Rejects the first field of `record` that `allowed` does not hold, as `unknown_parameter`. */
export function checkKeys(
  record: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  at: string,
): void {
  for (const key of Object.keys(record)) {
    if (allowed.has(key)) continue
    const shown = key.length > SHOWN_CHARS ? `${key.slice(0, SHOWN_CHARS)}...` : key
    const param = joinParam(at, shown)
    const guess = closestName(key, [...allowed])
    const hint = guess === undefined ? '' : ` Did you mean "${guess}"?`
    reject(
      'unknown_parameter',
      param,
      `Unrecognized request argument supplied: ${param}.${hint} Accepted here: ${[...allowed].join(', ')}.`,
    )
  }
}

/** Names a typo is compared against only when it is short enough to be one. */
const GUESS_MAX_CHARS = 80
const GUESS_MAX_EDITS = 3

function normalise(name: string): string {
  return name.toLowerCase().replace(/[-\s.]/g, '_')
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
    }
    previous = current
  }
  return previous[b.length]!
}

/**
 * The valid name a mistyped `value` most likely meant: equal after normalising case and
 * separators, or within three edits and a third of the name. Undefined when nothing is that close.
 */
export function closestName(value: string, names: readonly string[]): string | undefined {
  if (value.length > GUESS_MAX_CHARS) return undefined
  const wanted = normalise(value)
  let best: string | undefined
  let bestDistance = GUESS_MAX_EDITS + 1
  for (const name of names) {
    const distance = editDistance(wanted, normalise(name))
    if (distance < bestDistance && distance < Math.max(1, name.length / 3)) {
      best = name
      bestDistance = distance
    }
  }
  return best
}
