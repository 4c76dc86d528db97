import type { CapturedOutput, OutputFile, RunRequest, RunResult } from '../driver.js'
import { SandboxError } from '../driver.js'
import type { KernelReply } from './attached-kernel.js'

/** The largest code accepted by a run, as the local driver. */
export const MAX_CODE_BYTES = 1024 * 1024

export function checkRunRequest(request: RunRequest): void {
  if (typeof request !== 'object' || request === null) throw new TypeError('a run needs a request')
  if (request.language !== 'python' && request.language !== 'bash') {
    throw new TypeError('language must be "python" or "bash"')
  }
  if (typeof request.code !== 'string') throw new TypeError('code must be a string')
  if (Buffer.byteLength(request.code) > MAX_CODE_BYTES) {
    throw new RangeError(`code is larger than ${MAX_CODE_BYTES} bytes`)
  }
}

export function expectOk(reply: KernelReply): KernelReply {
  if (reply.op !== 'error') return reply
  const code = reply.code
  const known = code === 'file_not_found' || code === 'invalid_path' ? code : 'sandbox_failed'
  throw new SandboxError(String(reply.message ?? 'the sandbox refused the request'), known)
}

export function isOutputFile(value: unknown): value is OutputFile {
  if (typeof value !== 'object' || value === null) return false
  const f = value as Record<string, unknown>
  return typeof f.path === 'string' && typeof f.bytes === 'number'
}

function captured(value: unknown): CapturedOutput {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>
  return {
    text: typeof v.text === 'string' ? v.text : '',
    bytes: typeof v.bytes === 'number' ? v.bytes : 0,
    truncated: v.truncated === true,
  }
}

export function toRunResult(reply: KernelReply, elapsedMs: number, restarted: boolean): RunResult {
  if (reply.op !== 'result') {
    throw new SandboxError(
      `the sandbox could not run the code: ${String(reply.message ?? reply.op)}`,
      'sandbox_failed',
    )
  }
  return {
    exitCode: typeof reply.exit_code === 'number' ? reply.exit_code : 1,
    stdout: captured(reply.stdout),
    stderr: captured(reply.stderr),
    durationMs: typeof reply.duration_ms === 'number' ? reply.duration_ms : Math.round(elapsedMs),
    timedOut: false,
    kernelRestarted: restarted,
  }
}
