import { type ChildProcessByStdio, spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { constants } from 'node:os'
import type { Readable, Writable } from 'node:stream'
import type { KernelReply } from '../kernel-replies.js'
import { encodeFrame, FrameDecoder } from './frames.js'
import { type LaunchPlan, launchCommand } from './launch.js'

/** The kernel's replies are one run's capped output or a file chunk: far below this. */
const MAX_REPLY_BYTES = 16 * 1024 * 1024
const STDERR_KEPT = 4096

export class KernelExitedError extends Error {
  constructor(
    readonly exitCode: number,
    detail: string,
  ) {
    super(`the sandbox kernel exited (${exitCode})${detail ? `: ${detail}` : ''}`)
    this.name = 'KernelExitedError'
  }
}

interface Pending {
  resolve: (reply: KernelReply) => void
  reject: (error: Error) => void
}

/**
 * One bwrap sandbox running kernel.py, and the framed conversation with it: one request at a time,
 * replies in order. Anything unexpected from the sandbox (a bad frame, an early exit) ends it.
 */
export class KernelProcess {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>
  private readonly decoder = new FrameDecoder(MAX_REPLY_BYTES)
  private readonly waiting: Pending[] = []
  private stderrTail = ''
  readonly exited: Promise<number>
  private exitCode: number | null = null
  readonly ready: Promise<KernelReply>

  constructor(plan: LaunchPlan, seccompPath: string) {
    const { command, args, env } = launchCommand(plan)
    const seccompFd = openSync(seccompPath, 'r')
    try {
      this.child = spawn(command, args, {
        env,
        stdio: ['pipe', 'pipe', 'pipe', seccompFd],
      }) as ChildProcessByStdio<Writable, Readable, Readable>
    } finally {
      closeSync(seccompFd)
    }
    this.ready = new Promise((resolve, reject) => this.waiting.push({ resolve, reject }))
    this.ready.catch(() => undefined)
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0)
        this.failAll(new KernelExitedError(this.exitCode, this.stderrTail.trim()))
        resolve(this.exitCode)
      })
    })
    this.child.on('error', (error) => this.failAll(error))
    this.child.stdin.on('error', () => undefined)
    this.child.stdout.on('data', (chunk: Buffer) => {
      let replies: unknown[]
      try {
        replies = this.decoder.push(chunk)
      } catch (error) {
        this.failAll(error as Error)
        this.kill()
        return
      }
      for (const reply of replies) {
        const pending = this.waiting.shift()
        if (!pending || typeof reply !== 'object' || reply === null || !('op' in reply)) {
          pending?.reject(new Error('the sandbox kernel sent an unexpected message'))
          this.kill()
          return
        }
        pending.resolve(reply as KernelReply)
      }
    })
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT)
    })
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  get alive(): boolean {
    return this.exitCode === null
  }

  request(message: Record<string, unknown>): Promise<KernelReply> {
    if (!this.alive)
      return Promise.reject(new KernelExitedError(this.exitCode ?? -1, this.stderrTail))
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject })
      this.child.stdin.write(encodeFrame(message))
    })
  }

  /** Kills bwrap; with its pid namespace gone, the kernel dies too (the cgroup kill gets the rest). */
  kill(): void {
    if (this.alive) this.child.kill('SIGKILL')
  }

  private failAll(error: Error): void {
    for (const pending of this.waiting.splice(0)) pending.reject(error)
  }
}
