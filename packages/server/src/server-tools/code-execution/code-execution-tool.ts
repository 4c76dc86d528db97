import {
  type ChatFunctionToolCall,
  CODE_EXECUTION_TYPE,
  type CodeExecutionCall,
  type CodeExecutionFile,
  type CodeExecutionStatus,
  codeExecutionFunction,
  type ServerToolCallDelta,
} from '@syntic/protocol'
import type { RunResult } from '@syntic/sandbox'
import type { ContainerService } from '../../containers/container-service.js'
import type { OutputFiles } from '../../containers/files-in-out.js'
import { MAX_SERVER_TOOL_ROUNDS } from '../../loop/limits.js'
import type {
  ServerTool,
  ServerToolContext,
  ServerToolMessageFields,
  ServerToolOutcome,
} from '../../loop/server-tool.js'
import type { ContainerRecord } from '../../store/port.js'
import { runResultText } from './result-text.js'
import { parseRunArguments } from './run-arguments.js'

export interface CodeExecutionToolOptions {
  containers: ContainerService
  container: ContainerRecord
  outputs: OutputFiles
  maxRuns: number
  /** `include: ["code_execution.code"]`: records carry the code and its output. */
  includeCode: boolean
  inputFiles: readonly string[]
  runTimeoutMs: number
  network: boolean
  packageMirror: boolean
}

const USED_UP_NOTE =
  'You have used every code run this request allows. Do not call syntic_code_execution again: answer the user now with what you found.'

/** `syntic_code_execution` for one request, in one container. */
export class CodeExecutionTool implements ServerTool {
  readonly definitions
  readonly initial = []
  readonly maxRounds: number
  /** Each run's duration, for billing. */
  readonly runMs: number[] = []
  private readonly files: CodeExecutionFile[] = []
  private runs = 0
  container: ContainerRecord

  constructor(private readonly options: CodeExecutionToolOptions) {
    this.container = options.container
    // Rounds with only bad arguments run nothing; they get a few rounds beyond the runs.
    this.maxRounds = options.maxRuns + MAX_SERVER_TOOL_ROUNDS
    this.definitions = [
      codeExecutionFunction({
        maxRuns: options.maxRuns,
        inputFiles: options.inputFiles,
        runTimeoutSeconds: Math.round(options.runTimeoutMs / 1000),
        network: options.network,
        packageMirror: options.packageMirror,
      }),
    ]
  }

  handles(name: string): boolean {
    return name === CODE_EXECUTION_TYPE
  }

  running(call: ChatFunctionToolCall, id: string): Omit<ServerToolCallDelta, 'index'> {
    const args = parseRunArguments(call.function.arguments)
    return { id, type: CODE_EXECUTION_TYPE, status: 'running', ...this.detail(args) }
  }

  async run(
    call: ChatFunctionToolCall,
    id: string,
    context: ServerToolContext,
  ): Promise<ServerToolOutcome> {
    const args = parseRunArguments(call.function.arguments)
    if (this.runs >= this.options.maxRuns) {
      return {
        modelText: 'Error: no code runs are left in this request.',
        record: this.record(id, 'error', null, 0, args),
        retire: USED_UP_NOTE,
      }
    }
    if (!args.ok) return { modelText: args.error, record: this.record(id, 'error', null, 0, args) }
    this.runs++
    const { containers } = this.options
    // A client that leaves mid-run cancels it: the driver kills what it started and the container
    // stays usable for the next request.
    const result = await containers.driver.run(
      this.container.sandboxId,
      { language: args.language, code: args.code },
      { signal: context.signal },
    )
    this.runMs.push(result.durationMs)
    this.container = await containers.touch(this.container)
    if (result.cancelled) {
      return {
        modelText: runResultText(result, { created: [], skipped: [] }, 0, 0),
        record: this.record(id, 'error', result.exitCode, result.durationMs, args, result),
      }
    }
    const outputs = await this.options.outputs.collect()
    for (const file of outputs.created) {
      this.files.push({
        id: file.id,
        filename: file.filename,
        bytes: file.bytes,
        source: 'code_execution',
      })
    }
    const left = this.options.maxRuns - this.runs
    const outcome: ServerToolOutcome = {
      modelText: runResultText(result, outputs, left, Math.round(this.options.runTimeoutMs / 1000)),
      record: this.record(id, statusOf(result), result.exitCode, result.durationMs, args, result),
    }
    if (left === 0) outcome.retire = USED_UP_NOTE
    return outcome
  }

  messageFields(): ServerToolMessageFields {
    return this.files.length === 0 ? {} : { files: [...this.files] }
  }

  private detail(args: { language?: 'python' | 'bash'; code?: string }) {
    if (!this.options.includeCode) return {}
    return {
      ...(args.language ? { language: args.language } : {}),
      ...(args.code !== undefined ? { code: args.code } : {}),
    }
  }

  private record(
    id: string,
    status: CodeExecutionStatus,
    exitCode: number | null,
    durationMs: number,
    args: { language?: 'python' | 'bash'; code?: string },
    result?: RunResult,
  ): CodeExecutionCall {
    const record: CodeExecutionCall = {
      id,
      type: CODE_EXECUTION_TYPE,
      status,
      exit_code: exitCode,
      duration_ms: Math.round(durationMs),
      ...this.detail(args),
    }
    if (this.options.includeCode && result !== undefined) {
      record.stdout = result.stdout.text
      record.stderr = result.stderr.text
    }
    return record
  }
}

function statusOf(result: RunResult): CodeExecutionStatus {
  if (result.timedOut) return 'timeout'
  return result.exitCode === 0 ? 'ok' : 'error'
}
