// The search tool as the model sees it, and the text it reads back from a search.
import type { ChatFunctionTool } from '../chat/types.js'
import { TOOL_SEARCH_TYPE } from './types.js'

function count(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
}

/** The one-line hint that more tools exist than the model sees. */
function hint(deferredCount: number): string {
  if (deferredCount <= 0) return 'Every tool is loaded already.'
  const verb = deferredCount === 1 ? 'is' : 'are'
  return `${count(deferredCount, 'more tool', 'more tools')} ${verb} available but not loaded: search for them by what they do, then call them.`
}

/**
 * The function tool the model calls to search: `syntic_tool_search({ query })`. Its description
 * says what a search does and carries the hint of how many tools wait to be found.
 */
export function toolSearchFunction(deferredCount: number): ChatFunctionTool {
  return {
    type: 'function',
    function: {
      name: TOOL_SEARCH_TYPE,
      description: `Find tools that are not loaded yet and load the best matches, so you can call them next. ${hint(deferredCount)}`,
      parameters: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            description: 'What the tool should do, in a few words, e.g. "refund an order".',
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  }
}

/** Longest description shown per tool: its first line, cut; the full definition is loaded. */
const DESCRIPTION_MAX_CHARS = 160

function firstLine(description: string | undefined): string {
  const line = (description ?? '').trim().split('\n', 1)[0]!.trim()
  return line.length > DESCRIPTION_MAX_CHARS
    ? `${line.slice(0, DESCRIPTION_MAX_CHARS - 3)}...`
    : line
}

/**
 * What the model reads as a search's result: the tools it loaded, each with the first line of its
 * description, or, when nothing matched, a nudge to search with other words. `note` adds one more
 * line, such as which tools were unloaded to stay within the limit of tools loaded at once.
 */
export function toolSearchResultText(
  loaded: readonly { name: string; description?: string }[],
  note?: string,
): string {
  const lines: string[] = []
  if (loaded.length === 0) {
    lines.push(
      'No tools matched. Search again with other words: name the action and the thing it acts on, or use a synonym.',
    )
  } else {
    lines.push(`Loaded ${count(loaded.length, 'tool', 'tools')}; you can call them now:`)
    for (const tool of loaded) {
      const description = firstLine(tool.description)
      lines.push(description === '' ? `- ${tool.name}` : `- ${tool.name}: ${description}`)
    }
  }
  if (note !== undefined && note !== '') lines.push(note)
  return lines.join('\n')
}
