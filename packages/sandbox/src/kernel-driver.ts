import {
  type InputContent,
  type OutputFile,
  type RunOptions,
  type RunRequest,
  type RunResult,
  SandboxError,
} from './driver.js'
import {
  checkRunRequest,
  type KernelChannel,
  listOutputFiles,
  MAX_READ_BYTES,
  outputChunks,
  putInputFile,
  readOutputFile,
} from './kernel-replies.js'
import { checkRelativePath } from './paths.js'

/** What a driver keeps of a live sandbox to talk to its kernel. */
export interface KernelSandbox {
  kernel: KernelChannel
  /** Requests to one sandbox run one after another. */
  queue: Promise<unknown>
}

/**
 * The requests every driver serves the same way, through the sandbox's kernel.py: one at a time
 * per sandbox, a kernel that died in between revived first. A driver adds how sandboxes start,
 * run code (and are cleaned up after a run that went wrong) and end.
 */
export abstract class KernelDriver<S extends KernelSandbox> {
  protected readonly sandboxes = new Map<string, S>()

  /** Runs one request's code in the sandbox, whose turn in the queue it is. */
  protected abstract runNow(
    sandbox: S,
    request: RunRequest,
    signal: AbortSignal | undefined,
  ): Promise<RunResult>

  /** Restarts a kernel that stopped between requests; true when it did. */
  protected abstract reviveIfDead(sandbox: S): Promise<boolean>

  async run(id: string, request: RunRequest, options: RunOptions = {}): Promise<RunResult> {
    checkRunRequest(request)
    const { signal } = options
    return this.enqueue(id, (sandbox) => {
      signal?.throwIfAborted()
      return this.runNow(sandbox, request, signal)
    })
  }

  async putInput(id: string, path: string, content: InputContent): Promise<void> {
    const relative = checkRelativePath(path)
    return this.enqueue(id, async (sandbox) => {
      await this.reviveIfDead(sandbox)
      await putInputFile(sandbox.kernel, relative, content)
    })
  }

  listOutput(id: string): Promise<OutputFile[]> {
    return this.enqueue(id, async (sandbox) => {
      await this.reviveIfDead(sandbox)
      return listOutputFiles(sandbox.kernel)
    })
  }

  async readOutput(id: string, path: string, maxBytes = MAX_READ_BYTES): Promise<Buffer> {
    const relative = checkRelativePath(path)
    return this.enqueue(id, async (sandbox) => {
      await this.reviveIfDead(sandbox)
      return readOutputFile(sandbox.kernel, relative, maxBytes)
    })
  }

  async *readOutputChunks(
    id: string,
    path: string,
    maxBytes = MAX_READ_BYTES,
  ): AsyncGenerator<Buffer> {
    const relative = checkRelativePath(path)
    // Each piece is its own turn in the sandbox's queue: a slow consumer does not hold up runs.
    const readAt = (offset: number, length: number) =>
      this.enqueue(id, async (sandbox) => {
        await this.reviveIfDead(sandbox)
        return sandbox.kernel.request({ op: 'read', path: relative, offset, length })
      })
    yield* outputChunks(readAt, relative, maxBytes)
  }

  protected mustGet(id: string): S {
    const sandbox = this.sandboxes.get(id)
    if (!sandbox) throw notFound(id)
    return sandbox
  }

  protected enqueue<T>(id: string, action: (sandbox: S) => Promise<T>): Promise<T> {
    let sandbox: S
    try {
      sandbox = this.mustGet(id)
    } catch (error) {
      return Promise.reject(error)
    }
    const next = sandbox.queue.then(() => {
      if (this.sandboxes.get(id) !== sandbox) throw notFound(id)
      return action(sandbox)
    })
    sandbox.queue = next.catch(() => undefined)
    return next
  }
}

function notFound(id: unknown): SandboxError {
  return new SandboxError(`no sandbox ${String(id).slice(0, 40)}`, 'sandbox_not_found')
}
