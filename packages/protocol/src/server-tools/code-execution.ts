// Code execution as a server tool (spec: code-execution): the tool entry callers list, the
// records responses carry, and the limits the spec names.

export const CODE_EXECUTION_TYPE = 'syntic_code_execution'

/** The `include` value that adds each run's code and output to `server_tool_calls[]`. */
export const INCLUDE_CODE_EXECUTION_CODE = 'code_execution.code'
export const INCLUDE_VALUES = [INCLUDE_CODE_EXECUTION_CODE] as const
export type IncludeValue = (typeof INCLUDE_VALUES)[number]

/** Spec: Tool definition, `max_runs`. */
export const CODE_EXECUTION_MAX_RUNS_MIN = 1
export const CODE_EXECUTION_MAX_RUNS_MAX = 50
export const CODE_EXECUTION_MAX_RUNS_DEFAULT = 20

/** Files one code execution entry may list; each is copied into the container before it starts. */
export const CODE_EXECUTION_FILES_MAX = 100
/** Longest `cntr_` or `file_` id accepted; real ones are much shorter, longer ones match nothing. */
export const CODE_EXECUTION_ID_MAX_CHARS = 256
/** Longest code or output text in a run record sent back: the server's own runs stay far below. */
export const CODE_EXECUTION_RECORD_TEXT_MAX_CHARS = 2_000_000

export const CODE_EXECUTION_LANGUAGES = ['python', 'bash'] as const
export type CodeExecutionLanguage = (typeof CODE_EXECUTION_LANGUAGES)[number]

export const CODE_EXECUTION_STATUSES = ['ok', 'error', 'timeout'] as const
/** `ok`: exit code 0; `error`: another exit code, or arguments the server could not run; `timeout`: killed at the run timeout. */
export type CodeExecutionStatus = (typeof CODE_EXECUTION_STATUSES)[number]

/** `{"type": "syntic_code_execution", "container"?, "files"?, "max_runs"?}` in `tools`. */
export interface CodeExecutionToolEntry {
  type: typeof CODE_EXECUTION_TYPE
  /** `"auto"` (default) starts a fresh container; `{ id }` reuses a live one. */
  container?: 'auto' | { id: string }
  /** File ids copied into `/mnt/input/` before the model starts. */
  files?: string[]
  max_runs?: number
}

/** An entry of `message.server_tool_calls[]` for one run (spec: Response). */
export interface CodeExecutionCall {
  id: string
  type: typeof CODE_EXECUTION_TYPE
  status: CodeExecutionStatus
  /** Null when nothing ran (arguments the server could not run). */
  exit_code: number | null
  duration_ms: number
  /** With `include: ["code_execution.code"]`: */
  language?: CodeExecutionLanguage
  code?: string
  stdout?: string
  stderr?: string
}

/** An entry of `message.files[]`: a file the code wrote to `/mnt/output/`. */
export interface CodeExecutionFile {
  id: string
  filename: string
  bytes: number
  source: 'code_execution'
}

/** The response's top-level `container`: send `id` back to keep working in it. */
export interface ContainerInfo {
  id: string
  /** Unix seconds: the earlier of idle expiry and the absolute lifetime. */
  expires_at: number
}

/** `usage.server_tool_use`: what the server tools used for this request, as billed. */
export interface ServerToolUsage {
  code_execution_seconds: number
}

/**
 * On `/v1/messages` a run is a `server_tool_use` block (its input holds the language and code
 * with the include, else nothing) followed by a `syntic_code_execution_result` block.
 */
export interface MessagesCodeExecutionUseBlock {
  type: 'server_tool_use'
  id: string
  name: typeof CODE_EXECUTION_TYPE
  input: { language?: CodeExecutionLanguage; code?: string }
}

export interface MessagesCodeExecutionResultBlock {
  type: 'syntic_code_execution_result'
  tool_use_id: string
  status: CodeExecutionStatus
  exit_code: number | null
  duration_ms: number
  stdout?: string
  stderr?: string
}
