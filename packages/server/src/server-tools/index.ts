import {
  type ChatCompletionRequest,
  type ChatTool,
  CODE_EXECUTION_TYPE,
  type CodeExecutionToolEntry,
  type ContainerInfo,
  planToolSearch,
  type ServerToolUsage,
} from '@syntic/protocol'
import type { ServerTool } from '../loop/server-tool.js'
import type { Scope } from '../store/port.js'
import {
  type CodeExecutionDeps,
  type CodeExecutionSession,
  prepareCodeExecution,
} from './code-execution/prepare-code-execution.js'
import type { ToolIndex } from './tool-search/tool-index.js'
import { ToolSearchTool } from './tool-search/tool-search-tool.js'

export type { CodeExecutionDeps } from './code-execution/prepare-code-execution.js'
export type { ToolIndex } from './tool-search/tool-index.js'
export { embeddingsUnavailable } from './tool-search/tool-search-tool.js'

export interface ServerToolDeps {
  toolIndex: ToolIndex
  codeExecution: CodeExecutionDeps
}

/** Who the request is from, for server tools that keep state (containers, files, billing). */
export interface ServerToolRequest {
  scope: Scope
  requestId: string
}

/** What the response carries beside the message: top-level `container`, `usage.server_tool_use`. */
export interface ResponseExtras {
  container?: ContainerInfo
  serverToolUse?: ServerToolUsage
}

/** A request's server tools, and its own tools the model sees from the start. */
export interface PreparedServerTools {
  baseTools: ChatTool[]
  serverTools: ServerTool[]
  /** After the loop (answered or failed): bills what the tools used; once per request. */
  settle(): Promise<ResponseExtras>
  release(): void
}

function isCodeExecutionEntry(tool: ChatTool): tool is CodeExecutionToolEntry {
  return tool.type === CODE_EXECUTION_TYPE
}

/**
 * The server tools a chat request uses; null when it uses none (the plain relay path). Throws the
 * spec's errors for code execution before anything reaches the upstream.
 */
export async function prepareServerTools(
  request: ChatCompletionRequest,
  deps: ServerToolDeps,
  context: ServerToolRequest,
): Promise<PreparedServerTools | null> {
  const tools = request.tools ?? []
  const plan = planToolSearch(request)
  const entryIndex = tools.findIndex(isCodeExecutionEntry)
  if (plan === null && entryIndex < 0) return null
  const serverTools: ServerTool[] = []
  if (plan !== null) serverTools.push(new ToolSearchTool(plan, deps.toolIndex, context.scope))
  let session: CodeExecutionSession | undefined
  if (entryIndex >= 0) {
    session = await prepareCodeExecution(
      {
        entry: tools[entryIndex] as CodeExecutionToolEntry,
        at: `tools[${entryIndex}]`,
        include: request.include ?? [],
        ...context,
      },
      deps.codeExecution,
    )
    serverTools.push(session.tool)
  }
  const baseTools = (plan?.loaded ?? tools).filter((tool) => !isCodeExecutionEntry(tool))
  return {
    baseTools,
    serverTools,
    async settle() {
      if (session === undefined) return {}
      const settled = await session.settle()
      return { container: settled.container, serverToolUse: settled.serverToolUse }
    },
    release: () => session?.release(),
  }
}
