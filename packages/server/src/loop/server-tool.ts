import type {
  ChatFunctionTool,
  ChatFunctionToolCall,
  ChatTool,
  CodeExecutionFile,
  ServerToolCall,
  ServerToolCallDelta,
  ToolSearchRecord,
} from '@syntic/protocol'

export interface ServerToolContext {
  /** Aborted when the client goes away: the tool must stop. */
  signal: AbortSignal
}

/** What one call of a server tool did. */
export interface ServerToolOutcome {
  /** The tool result the model reads on its next turn. */
  modelText: string
  /** The `server_tool_calls[]` entry the client gets. */
  record: ServerToolCall
  /** Definitions the upstream sees from the next turn on. */
  load?: readonly ChatTool[]
  /** Names of loaded definitions the upstream no longer sees. */
  unload?: readonly string[]
  /**
   * Set when the tool is used up (code execution's `max_runs`): its definitions leave the tool
   * list and this note is added to the result the model reads.
   */
  retire?: string
}

/** Fields server tools add to the final assistant message, beside `server_tool_calls`. */
export interface ServerToolMessageFields {
  tool_search?: ToolSearchRecord
  files?: CodeExecutionFile[]
}

/**
 * A tool the server runs itself while it loops with the model, for one request. The loop owns
 * the tool list the upstream sees: it adds `definitions` while the tool is available, `initial`
 * before the first turn, and applies each outcome's `load` and `unload`.
 */
export interface ServerTool {
  /** Function tools the model calls to use this server tool. */
  readonly definitions: readonly ChatFunctionTool[]
  /** Rounds of calls this tool may run in before the loop takes it away (default: limits.ts). */
  readonly maxRounds?: number
  /** Definitions loaded before the first turn (a replayed record, for example). */
  readonly initial: readonly ChatTool[]
  handles(name: string): boolean
  /** The streamed `running` delta of a call about to run (without its index). */
  running(call: ChatFunctionToolCall, id: string): Omit<ServerToolCallDelta, 'index'>
  /**
   * Runs one call. Bad arguments from the model are an outcome with an error text and status,
   * never a throw; a throw is a failure of the request (an ApiError says which).
   */
  run(
    call: ChatFunctionToolCall,
    id: string,
    context: ServerToolContext,
  ): Promise<ServerToolOutcome>
  messageFields(): ServerToolMessageFields
}
