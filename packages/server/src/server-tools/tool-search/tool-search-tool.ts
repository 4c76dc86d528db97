import {
  type ChatFunctionToolCall,
  type ChatTool,
  type ServerToolCallDelta,
  TOOL_SEARCH_MAX_LOADED,
  TOOL_SEARCH_TYPE,
  type ToolSearchCall,
  type ToolSearchPlan,
  toolSearchFunction,
  toolSearchResultText,
} from '@syntic/protocol'
import { EmbedderError, type ToolDocument } from '@syntic/tool-search'
import { ApiError } from '../../errors.js'
import type {
  ServerTool,
  ServerToolContext,
  ServerToolMessageFields,
  ServerToolOutcome,
} from '../../loop/server-tool.js'
import { toolName } from '../../loop/tool-list.js'
import { LoadedTools } from './loaded-tools.js'
import { parseSearchArguments } from './search-arguments.js'
import type { ToolIndex } from './tool-index.js'

// What the model reads of each tool found; the full definition is in its tool list anyway.
const SUMMARY_CHARS = 200

/**
 * `syntic_tool_search` for one request: its catalog is the request's deferred tools, indexed
 * (once per distinct catalog, by the process-wide index) on the first search.
 */
export class ToolSearchTool implements ServerTool {
  readonly definitions
  readonly initial: ChatTool[]
  private readonly byName = new Map<string, ChatTool>()
  private readonly loaded = new LoadedTools(TOOL_SEARCH_MAX_LOADED)
  private catalog: ReturnType<ToolIndex['catalog']> | undefined

  /**
   * `scope` (the request's org and workspace) lets the index find a catalog by a cheap
   * fingerprint, seen only by that scope; without it, catalogs are found by their full hash.
   */
  constructor(
    private readonly plan: ToolSearchPlan,
    private readonly index: ToolIndex,
    private readonly scope?: { org: string; workspace: string },
  ) {
    this.definitions = [toolSearchFunction(plan.deferred.length)]
    for (const tool of plan.deferred) this.byName.set(toolName(tool), tool)
    const replayed = plan.replayed.filter((name) => this.byName.has(name))
    this.loaded.load(replayed)
    this.initial = this.loaded.names().map((name) => this.byName.get(name)!)
  }

  handles(name: string): boolean {
    return name === TOOL_SEARCH_TYPE
  }

  running(call: ChatFunctionToolCall, id: string): Omit<ServerToolCallDelta, 'index'> {
    return {
      id,
      type: TOOL_SEARCH_TYPE,
      status: 'running',
      query: parseSearchArguments(call.function.arguments).query,
    }
  }

  async run(
    call: ChatFunctionToolCall,
    id: string,
    context: ServerToolContext,
  ): Promise<ServerToolOutcome> {
    const parsed = parseSearchArguments(call.function.arguments)
    if (!parsed.ok) {
      return { modelText: parsed.error, record: this.record(id, parsed.query, [], 'error') }
    }
    const hits = await this.search(parsed.query, context.signal)
    const found = hits.map((hit) => hit.name).filter((name) => this.byName.has(name))
    const unloaded = this.loaded.load(found)
    const tools = found.map((name) => this.byName.get(name)!)
    const note =
      unloaded.length === 0
        ? undefined
        : `At most ${TOOL_SEARCH_MAX_LOADED} tools stay loaded, so these were unloaded: ${unloaded.join(', ')}. Search again to load them back.`
    return {
      modelText: toolSearchResultText(tools.map(summary), note),
      record: this.record(id, parsed.query, found, 'ok'),
      load: tools,
      unload: unloaded,
    }
  }

  messageFields(): ServerToolMessageFields {
    return { tool_search: { loaded: this.loaded.names() } }
  }

  private async search(query: string, signal: AbortSignal) {
    this.catalog ??= this.index.catalog(
      this.plan.deferred.map(toolDocument),
      this.scope === undefined ? {} : { scope: scopeKey(this.scope) },
    )
    try {
      return await this.catalog.search(query, {
        mode: this.plan.mode,
        limit: this.plan.maxResults,
        signal,
      })
    } catch (error) {
      if (error instanceof EmbedderError) throw embeddingsUnavailable(error)
      throw error
    }
  }

  private record(
    id: string,
    query: string,
    loaded: string[],
    status: ToolSearchCall['status'],
  ): ToolSearchCall {
    return { id, type: TOOL_SEARCH_TYPE, query, loaded, status }
  }
}

/**
 * The client is not told why: the embeddings backend's address and answers are the operator's
 * business. The reason stays on the error's `cause` for the server's own logs.
 */
export function embeddingsUnavailable(error: EmbedderError): ApiError {
  const api = new ApiError(
    502,
    'api_error',
    'embeddings_unavailable',
    'Semantic tool search failed: the embeddings backend did not answer. Retry, or use "mode": "keyword".',
  )
  api.cause = error
  return api
}

function scopeKey(scope: { org: string; workspace: string }): string {
  return JSON.stringify([scope.org, scope.workspace])
}

// The index reads only `name`, `description` and `parameters`: a function tool's own object
// serves, with no copy of 10,000 definitions per request.
function toolDocument(tool: ChatTool): ToolDocument {
  if (tool.type === 'function') return tool.function
  if (tool.type === 'custom') {
    const { name, description } = tool.custom
    return { name, ...(description !== undefined ? { description } : {}) }
  }
  return { name: toolName(tool) }
}

function summary(tool: ChatTool): { name: string; description?: string } {
  const described =
    tool.type === 'function'
      ? tool.function.description
      : tool.type === 'custom'
        ? tool.custom.description
        : undefined
  const name = toolName(tool)
  if (described === undefined) return { name }
  const line = described.split('\n', 1)[0]!.trim()
  return {
    name,
    description: line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line,
  }
}
