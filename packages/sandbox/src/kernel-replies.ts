import {
  type CapturedOutput,
  type InputContent,
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
/** Default ceiling of readOutput and readOutputChunks. */
export const MAX_READ_BYTES = 512 * 1024 * 1024
/** Largest file accepted by putInput. */
export const MAX_INPUT_BYTES = 1024 * 1024 * 1024
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

/** Re-cuts content into pieces of `size` bytes (the last one shorter), holding one piece at most. */
export async function* pieces(content: InputContent, size: number): AsyncGenerator<Buffer> {
  const source = content instanceof Uint8Array ? [content] : content
  let held: Buffer[] = []
  let heldBytes = 0
  for await (const chunk of source) {
    if (!(chunk instanceof Uint8Array)) throw new TypeError('input content must be bytes')
    let rest = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    while (heldBytes + rest.length >= size) {
      const take = size - heldBytes
      yield Buffer.concat([...held, rest.subarray(0, take)])
      rest = rest.subarray(take)
      held = []
      heldBytes = 0
    }
    if (rest.length > 0) {
      // A copy: the producer may reuse its buffer once we ask for the next chunk.
      held.push(Buffer.from(rest))
      heldBytes += rest.length
    }
  }
  if (heldBytes > 0) yield Buffer.concat(held)
}

/**
 * Writes a file under `/mnt/input/` through the kernel, one CHUNK_BYTES piece per request, so a
 * streamed input is never held whole. Past MAX_INPUT_BYTES it stops with `file_too_large`.
 */
export async function putInputFile(
  kernel: KernelChannel,
  relative: string,
  content: InputContent,
): Promise<void> {
  let offset = 0
  for await (const piece of pieces(content, CHUNK_BYTES)) {
    if (offset + piece.length > MAX_INPUT_BYTES) {
      throw new SandboxError(`input files are at most ${MAX_INPUT_BYTES} bytes`, 'file_too_large')
    }
    expectOk(
      await kernel.request({ op: 'put', path: relative, offset, data: piece.toString('base64') }),
    )
    offset += piece.length
  }
  if (offset === 0) expectOk(await kernel.request({ op: 'put', path: relative, offset, data: '' }))
}

/**
 * An output file as CHUNK_BYTES pieces, each read when the consumer asks for it (`readAt` sends
 * one read request); past `maxBytes` it stops with `file_too_large`.
 */
export async function* outputChunks(
  readAt: (offset: number, length: number) => Promise<KernelReply>,
  relative: string,
  maxBytes: number,
): AsyncGenerator<Buffer> {
  let total = 0
  for (;;) {
    const reply = expectOk(await readAt(total, CHUNK_BYTES))
    const chunk = Buffer.from(String(reply.data ?? ''), 'base64')
    total += chunk.length
    if (total > maxBytes) {
      throw new SandboxError(`${relative} is larger than ${maxBytes} bytes`, 'file_too_large')
    }
    if (chunk.length > 0) yield chunk
    if (chunk.length < CHUNK_BYTES) return
  }
}

/** Reads an output file whole, stopping as soon as it passes `maxBytes`. */
export async function readOutputFile(
  kernel: KernelChannel,
  relative: string,
  maxBytes: number,
): Promise<Buffer> {
  const chunks: Buffer[] = []
  const readAt = (offset: number, length: number) =>
    kernel.request({ op: 'read', path: relative, offset, length })
  for await (const chunk of outputChunks(readAt, relative, maxBytes)) chunks.push(chunk)
  return Buffer.concat(chunks)
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
