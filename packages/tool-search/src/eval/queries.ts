// The query-set format of the development data: one JSON object per line,
// {"id": ..., "query": "...", "gold": ["tool_name", ...]}.

export interface JudgedQuery {
  id: string | number
  query: string
  gold: string[]
}

export class QueryFileError extends Error {
  override readonly name = 'QueryFileError'
}

/** Parses a JSONL query set; blank lines are skipped, anything else malformed names its line. */
export function parseQueries(text: string): JudgedQuery[] {
  const queries: JudgedQuery[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === '') continue
    const fail = (why: string): never => {
      throw new QueryFileError(`line ${i + 1}: ${why}`)
    }
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      fail('not valid JSON')
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      fail('expected an object with "id", "query" and "gold"')
    }
    const { id, query, gold } = value as Record<string, unknown>
    if (typeof id !== 'string' && typeof id !== 'number') fail('"id" must be a string or a number')
    if (typeof query !== 'string') fail('"query" must be a string')
    if (!Array.isArray(gold) || !gold.every((g) => typeof g === 'string')) {
      fail('"gold" must be an array of tool names')
    }
    queries.push({ id: id as string | number, query: query as string, gold: gold as string[] })
  }
  return queries
}
