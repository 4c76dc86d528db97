import {
  type CapturedOutput,
  type OutputFile,
  type RunRequest,
  type RunResult,
  SandboxError,
} from './driver.js'

/** A kernel.py reply: `{op: ...}` and the op's fields. */
export type KernelReply = Record<string, unknown> & { op: string }

/** The framed conversation with kernel.py, whichever driver carries it. */
export interface KernelChannel {
  request(message: Record<string, unknown>): Promise<KernelReply>
}

/** The largest code accepted by a run. */
export const MAX_CODE_BYTES = 1024 * 1024
/** Default ceiling of readOutput: the file is held in memory. */
export const MAX_READ_BYTES = 512 * 1024 * 1024
/** File bytes per kernel request: well inside the kernel's frame limit once base64-encoded. */
export const CHUNK_BYTES = 4 * 1024 * 1024

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

function isOutputFile(value: unknown): value is OutputFile {
  if (typeof value !== 'object' || value === null) return false
  const f = value as Record<string, unknown>
  return typeof f.path === 'string' && typeof f.bytes === 'number'
}

/** The files under `/mnt/output/`, as the kernel lists them. */
export async function listOutputFiles(kernel: KernelChannel): Promise<OutputFile[]> {
  const files = expectOk(await kernel.request({ op: 'list' })).files
  if (!Array.isArray(files)) {
    throw new SandboxError('the sandbox sent a bad file list', 'sandbox_failed')
  }
  return files.filter(isOutputFile).map((f) => ({ path: f.path, bytes: f.bytes }))
}

/** Reads an output file chunk by chunk, stopping as soon as it passes `maxBytes`. */
export async function readOutputFile(
  kernel: KernelChannel,
  relative: string,
  maxBytes: number,
): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  for (;;) {
    const reply = expectOk(
      await kernel.request({ op: 'read', path: relative, offset: total, length: CHUNK_BYTES }),
    )
    const chunk = Buffer.from(String(reply.data ?? ''), 'base64')
    total += chunk.length
    if (total > maxBytes) {
      throw new SandboxError(`${relative} is larger than ${maxBytes} bytes`, 'file_too_large')
    }
    chunks.push(chunk)
    if (chunk.length < CHUNK_BYTES) return Buffer.concat(chunks)
  }
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
    cancelled: false,
    kernelRestarted: restarted,
  }
}

/** How a run ended while the driver waited: a reply, a dead kernel, its timeout, or the caller. */
export type RunOutcome =
  | { ended: 'reply'; reply: KernelReply }
  | { ended: 'died' }
  | { ended: 'timeout' }
  | { ended: 'cancelled' }

/** Sends the run to the kernel and waits for the first of: its reply, the timeout, the signal. */
export async function awaitRun(
  kernel: KernelChannel,
  request: RunRequest,
  limits: { runTimeoutMs: number; outputCapBytes: number },
  signal: AbortSignal | undefined,
): Promise<RunOutcome> {
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  const stopped = new Promise<RunOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ ended: 'timeout' }), limits.runTimeoutMs)
    onAbort = () => resolve({ ended: 'cancelled' })
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  const reply = kernel
    .request({
      op: 'run',
      language: request.language,
      code: request.code,
      output_cap: limits.outputCapBytes,
    })
    .then(
      (value): RunOutcome => ({ ended: 'reply', reply: value }),
      (): RunOutcome => ({ ended: 'died' }),
    )
  try {
    return await Promise.race([reply, stopped])
  } finally {
    clearTimeout(timer)
    if (onAbort) signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * The result of a run the driver killed (with everything it started), before or after the kernel
 * was started again. `filesKept` is false where the sandbox's files live in memory.
 */
export function killedResult(
  outcome: 'died' | 'timeout' | 'cancelled',
  exitCode: number,
  durationMs: number,
  runTimeoutMs: number,
  filesKept: boolean,
): RunResult {
  const lost = `variables and imports are gone${filesKept ? ', files remain' : ', and so are files (this host keeps them in memory)'}`
  const note =
    outcome === 'timeout'
      ? `Killed: the run passed its ${runTimeoutMs / 1000} s limit. Everything it started was stopped and the Python kernel was restarted: ${lost}.`
      : outcome === 'cancelled'
        ? `Cancelled: the request ended before the run did. Everything it started was stopped and the Python kernel was restarted: ${lost}.`
        : `Killed: the sandbox kernel died (exit ${exitCode}${exitCode === 137 ? ', likely out of memory' : ''}). It was restarted: ${lost}.`
  return {
    exitCode: outcome === 'died' ? exitCode || 1 : 137,
    stdout: { text: '', bytes: 0, truncated: false },
    stderr: { text: note, bytes: Buffer.byteLength(note), truncated: false },
    durationMs: Math.round(durationMs),
    timedOut: outcome === 'timeout',
    cancelled: outcome === 'cancelled',
    kernelRestarted: true,
  }
}
