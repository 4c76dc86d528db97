/** Longest query a search runs; a model that writes more is told to use a few words. */
export const MAX_QUERY_CHARS = 1000

export type SearchArguments =
  | { ok: true; query: string }
  | {
      ok: false
      error: string /** What the record shows: the query if there was one. */
      query: string
    }

const USAGE = 'Call syntic_tool_search with {"query": "what the tool should do"}.'

/** The model's arguments to a search call: a JSON object with a non-empty `query` string. */
export function parseSearchArguments(text: string): SearchArguments {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, query: '', error: `Error: the arguments are not valid JSON. ${USAGE}` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, query: '', error: `Error: the arguments must be a JSON object. ${USAGE}` }
  }
  const { query } = value as { query?: unknown }
  if (typeof query !== 'string' || query.trim() === '') {
    return { ok: false, query: '', error: `Error: "query" is missing or empty. ${USAGE}` }
  }
  if (query.length > MAX_QUERY_CHARS) {
    return {
      ok: false,
      query: query.slice(0, MAX_QUERY_CHARS),
      error: `Error: "query" is longer than ${MAX_QUERY_CHARS} characters. Describe the tool you need in a few words.`,
    }
  }
  return { ok: true, query: query.trim() }
}
