export { type EditorOptions, TextEditorTool } from './editor/index.js'
export type { ToolHandler } from './handler.js'
export { AlreadyExistsError, type Located, PathJail } from './jail/index.js'
export { MAX_LINE_BYTES, readLines, serveJsonLines } from './jsonl.js'
export {
  type ChatToolCall,
  type ChatToolMessage,
  runToolCalls,
  runToolUses,
  type ToolResultBlock,
  type ToolUseBlock,
} from './loop.js'
export {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  type MemoryOptions,
  MemoryTool,
} from './memory/index.js'
export { failure, success, ToolError, type ToolResult } from './result.js'
export * from './shell/index.js'
