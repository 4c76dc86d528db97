import type { CreateOptions, SandboxDriver, SandboxHandle } from './driver.js'

export interface PoolOptions {
  /** Sandboxes kept started and idle. */
  size: number
  /** How the pooled sandboxes are created; a request for other options bypasses the pool. */
  create?: CreateOptions
  /** Sandboxes started at once while refilling (creation is disk- and CPU-heavy). */
  concurrency?: number
}

/**
 * Keeps `size` sandboxes started so that taking one costs nothing: `acquire()` hands over an idle
 * sandbox and refills behind it. Works over any driver.
 */
export class SandboxPool {
  private readonly idle: SandboxHandle[] = []
  private starting = 0
  private closed = false
  private refilling: Promise<void> = Promise.resolve()
  /** The last refill failure, for health reports; cleared by a success. */
  lastError: Error | null = null

  constructor(
    private readonly driver: SandboxDriver,
    private readonly options: PoolOptions,
  ) {
    if (!Number.isInteger(options.size) || options.size < 0 || options.size > 1000) {
      throw new RangeError('pool size must be an integer from 0 to 1000')
    }
  }

  get size(): number {
    return this.idle.length
  }

  /** Fills the pool and resolves when it is full (or a creation failed). */
  async start(): Promise<void> {
    this.refill()
    await this.settled()
  }

  /** An idle sandbox, or a new one when the pool is empty. */
  async acquire(): Promise<SandboxHandle> {
    if (this.closed) throw new Error('the sandbox pool is closed')
    const handle = this.idle.shift()
    this.refill()
    return handle ?? this.driver.create(this.options.create)
  }

  /** Waits for the refill in progress; for tests and orderly shutdown. */
  async settled(): Promise<void> {
    let current: Promise<void>
    do {
      current = this.refilling
      await current
    } while (current !== this.refilling)
  }

  async close(): Promise<void> {
    this.closed = true
    await this.settled()
    await Promise.all(
      this.idle.splice(0).map((h) => this.driver.destroy(h.id).catch(() => undefined)),
    )
  }

  private refill(): void {
    const concurrency = Math.max(1, this.options.concurrency ?? 2)
    const wanted = this.options.size - this.idle.length - this.starting
    const batch = Math.min(wanted, concurrency - this.starting)
    if (this.closed || batch <= 0) return
    const runs: Promise<void>[] = []
    for (let i = 0; i < batch; i++) {
      this.starting++
      runs.push(
        this.driver.create(this.options.create).then(
          async (handle) => {
            this.starting--
            this.lastError = null
            if (this.closed) await this.driver.destroy(handle.id).catch(() => undefined)
            else {
              this.idle.push(handle)
              this.refill()
            }
          },
          (error: Error) => {
            this.starting--
            this.lastError = error
          },
        ),
      )
    }
    const previous = this.refilling
    this.refilling = Promise.all([previous, ...runs]).then(() => undefined)
  }
}
