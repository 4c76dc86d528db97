import type { LogSink } from '../request-log.js'
import type { ContainerService } from './container-service.js'

/**
 * Removes expired containers every `intervalMs`. Its state is the store's (each container's
 * expiry), so a restarted server picks up where the last one stopped. The timer is unref'd: it
 * never keeps a process alive.
 */
export class ContainerReaper {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> = Promise.resolve()

  constructor(
    private readonly containers: ContainerService,
    private readonly intervalMs: number,
    private readonly errorLog: LogSink,
  ) {}

  start(): void {
    if (this.timer !== undefined) return
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.sweep())
    }, this.intervalMs)
    this.timer.unref()
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.running
  }

  /** One pass; failures are logged and retried on the next tick. */
  async sweep(): Promise<void> {
    try {
      await this.containers.reap()
    } catch (error) {
      this.errorLog.write(
        `${JSON.stringify({ level: 'error', msg: 'container reaper failed', error: String(error) })}\n`,
      )
    }
  }
}
