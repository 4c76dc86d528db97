import type { Socket } from 'node:net'
import type { KernelReply } from '../kernel-replies.js'
import { encodeFrame, FrameDecoder } from '../local/frames.js'
import { StreamDemuxer } from './mux.js'

/** The kernel's replies are one run's capped output or a file chunk: far below this. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024
const STDERR_KEPT = 4096

export class KernelGoneError extends Error {
  constructor(detail: string) {
    super(`the sandbox kernel stopped${detail ? `: ${detail}` : ''}`)
    this.name = 'KernelGoneError'
  }
}

interface Pending {
  resolve: (reply: KernelReply) => void
  reject: (error: Error) => void
}

/**
 * The framed conversation with kernel.py, the container's main process, over the hijacked attach
 * connection: frames go to its stdin, its stdout and stderr come back multiplexed. One request at a
 * time, replies in order. The stream ends when the container stops; anything malformed ends it.
 */
export class AttachedKernel {
  private readonly decoder = new FrameDecoder(MAX_REPLY_BYTES)
  private readonly demuxer: StreamDemuxer
  private readonly waiting: Pending[] = []
  private stderrTail = ''
  private open = true
  readonly ready: Promise<KernelReply>
  /** Resolves when the connection ends (the container stopped, or it was closed). */
  readonly ended: Promise<void>

  constructor(
    private readonly socket: Socket,
    head: Buffer,
  ) {
    this.demuxer = new StreamDemuxer(
      (chunk) => this.onStdout(chunk),
      (chunk) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT)
      },
    )
    this.ready = new Promise((resolve, reject) => this.waiting.push({ resolve, reject }))
    this.ready.catch(() => undefined)
    this.ended = new Promise((resolve) => {
      socket.on('close', () => {
        this.open = false
        this.failAll(new KernelGoneError(this.stderrTail.trim()))
        resolve()
      })
    })
    socket.on('error', () => undefined)
    socket.on('data', (chunk: Buffer) => this.onData(chunk))
    if (head.length > 0) this.onData(head)
  }

  get alive(): boolean {
    return this.open
  }

  request(message: Record<string, unknown>): Promise<KernelReply> {
    if (!this.open) return Promise.reject(new KernelGoneError(this.stderrTail.trim()))
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject })
      this.socket.write(encodeFrame(message))
    })
  }

  close(): void {
    this.socket.destroy()
  }

  private onData(chunk: Buffer): void {
    try {
      this.demuxer.push(chunk)
    } catch (error) {
      this.fail(error as Error)
    }
  }

  private onStdout(chunk: Buffer): void {
    if (!this.open) return
    let replies: unknown[]
    try {
      replies = this.decoder.push(chunk)
    } catch (error) {
      this.fail(error as Error)
      return
    }
    for (const reply of replies) {
      const pending = this.waiting.shift()
      if (!pending || typeof reply !== 'object' || reply === null || !('op' in reply)) {
        pending?.reject(new Error('the sandbox kernel sent an unexpected message'))
        this.fail(new Error('the sandbox kernel sent an unexpected message'))
        return
      }
      pending.resolve(reply as KernelReply)
    }
  }

  /** A protocol violation: nothing more from this stream is trusted. */
  private fail(error: Error): void {
    this.open = false
    this.failAll(error)
    this.socket.destroy()
  }

  private failAll(error: Error): void {
    for (const pending of this.waiting.splice(0)) pending.reject(error)
  }
}
