import { type ChatCompletionRequest, type ChatTool, planToolSearch } from '@syntic/protocol'
import type { ServerTool } from '../loop/server-tool.js'
import type { ToolIndex } from './tool-search/tool-index.js'
import { ToolSearchTool } from './tool-search/tool-search-tool.js'

export type { ToolIndex } from './tool-search/tool-index.js'
export { embeddingsUnavailable } from './tool-search/tool-search-tool.js'

export interface ServerToolDeps {
  toolIndex: ToolIndex
}

/** A request's server tools, and its own tools the model sees from the start. */
export interface PreparedServerTools {
  baseTools: ChatTool[]
  serverTools: ServerTool[]
}

/** The server tools a chat request uses; null when it uses none (the plain relay path). */
export function prepareServerTools(
  request: ChatCompletionRequest,
  deps: ServerToolDeps,
): PreparedServerTools | null {
  const plan = planToolSearch(request)
  if (plan === null) return null
  return { baseTools: plan.loaded, serverTools: [new ToolSearchTool(plan, deps.toolIndex)] }
}
