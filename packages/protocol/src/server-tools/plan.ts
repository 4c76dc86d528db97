// What the server's tool search loop starts from: which tools the model sees, which wait to be
// found, and which earlier searches loaded (the replayed records).
import type {
  ChatCompletionRequest,
  ChatCustomTool,
  ChatFunctionTool,
  ChatTool,
} from '../chat/types.js'
import {
  TOOL_SEARCH_MAX_LOADED,
  TOOL_SEARCH_MAX_RESULTS_DEFAULT,
  TOOL_SEARCH_TYPE,
  type ToolSearchMode,
  type ToolSearchToolEntry,
} from './types.js'

/** A tool that `defer_loading` can keep out of the prompt. */
export type DeferrableTool = ChatFunctionTool | ChatCustomTool

export interface ToolSearchPlan {
  mode: ToolSearchMode
  maxResults: number
  /**
   * The tools the model sees from the start, in request order, the search tool entry excluded
   * and `defer_loading` removed: the non-deferred tools, plus a deferred tool that `tool_choice`
   * names.
   */
  loaded: ChatTool[]
  /** The deferred tools, in request order, `defer_loading` removed: what a search can load. */
  deferred: DeferrableTool[]
  /**
   * Names of deferred tools that `tool_search` records in the history loaded, each once, the
   * most recently recorded last; names of no deferred tool are ignored, and only the 128 most
   * recent are kept (the spec's limit of tools loaded at once).
   */
  replayed: string[]
}

function isSearchEntry(tool: ChatTool): tool is ToolSearchToolEntry {
  return tool.type === TOOL_SEARCH_TYPE
}

function toolName(tool: DeferrableTool): string {
  return tool.type === 'function' ? tool.function.name : tool.custom.name
}

/** A tool without its `defer_loading`, as an upstream may see it. */
export function withoutDeferLoading<T extends ChatTool>(tool: T): T {
  if (!('defer_loading' in tool)) return tool
  const { defer_loading: _, ...rest } = tool as T & { defer_loading?: boolean }
  return rest as T
}

/** The tool `tool_choice` (or the legacy `function_call`) names, if any. */
function chosenName(request: ChatCompletionRequest): string | undefined {
  const choice = request.tool_choice
  if (typeof choice === 'object') {
    if (choice.type === 'function') return choice.function.name
    if (choice.type === 'custom') return choice.custom.name
  }
  const legacy = request.function_call
  return typeof legacy === 'object' ? legacy.name : undefined
}

/** Deferred names the history's records loaded, most recent last, within the loaded limit. */
function replayedNames(request: ChatCompletionRequest, deferred: ReadonlySet<string>): string[] {
  // A Map keeps insertion order; deleting before setting moves a name to the end.
  const recent = new Map<string, true>()
  for (const message of request.messages) {
    if (message.role !== 'assistant' || message.tool_search === undefined) continue
    for (const name of message.tool_search.loaded) {
      if (!deferred.has(name)) continue
      recent.delete(name)
      recent.set(name, true)
    }
  }
  return [...recent.keys()].slice(-TOOL_SEARCH_MAX_LOADED)
}

/**
 * The plan for a validated chat request that lists the `syntic_tool_search` tool; null when it
 * does not. A messages request is planned through `messagesRequestToChat`, which carries
 * everything tool search needs. Linear in the size of the tools and the history.
 */
export function planToolSearch(request: ChatCompletionRequest): ToolSearchPlan | null {
  const tools = request.tools ?? []
  const entry = tools.find(isSearchEntry)
  if (entry === undefined) return null
  const chosen = chosenName(request)
  const loaded: ChatTool[] = []
  const deferred: DeferrableTool[] = []
  for (const tool of tools) {
    if (isSearchEntry(tool)) continue
    const deferrable = tool.type === 'function' || tool.type === 'custom'
    if (deferrable && tool.defer_loading === true && toolName(tool) !== chosen) {
      deferred.push(withoutDeferLoading(tool))
    } else {
      loaded.push(withoutDeferLoading(tool))
    }
  }
  const names = new Set(deferred.map(toolName))
  return {
    mode: entry.mode ?? 'keyword',
    maxResults: entry.max_results ?? TOOL_SEARCH_MAX_RESULTS_DEFAULT,
    loaded,
    deferred,
    replayed: replayedNames(request, names),
  }
}
