import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { Socket } from 'node:net'
import { constants } from 'node:os'
import { ToolError } from '../result.js'
import { frameCommand, MarkerScanner, markerLine, newNonce, shellQuote } from './framing.js'
import { OutputCapture } from './output.js'
import { killSessionTree, SESSION_TAG } from './process-tree.js'
import { BWRAP_MISSING, bwrapArgs, findBwrap } from './sandbox.js'

// One long-lived bash process (optionally inside bubblewrap) that runs commands one at a time.
// See framing.ts for how a command is sent and how its end is recognised.

export interface SessionConfig {
  /** Absolute, symlink-free workspace path. */
  workspace: string
  /** Folder to start in; the workspace if it no longer exists. */
  cwd: string
  sandbox: boolean
  network: boolean
  /** The home folder the sandbox hides. */
  home?: string
  /** The complete environment for bash. */
  env: Record<string, string>
}

export type RunOutcome =
  /** The command finished; the session lives on. */
  | { kind: 'done'; exitCode: number; cwd: string; output: string }
  /** The shell itself ended (`exit`, or it was killed). */
  | { kind: 'exited'; exitCode: number; output: string }
  /** The time ran out; the session has been killed. */
  | { kind: 'timeout'; output: string }

const STARTUP_TIMEOUT_MS = 15_000
// After bash exits, how long to wait for the last output still in the pipe.
const DRAIN_MS = 1_000
const STDERR_KEEP = 4_096

// Sessions still running, killed if the application exits without closing them.
const live = new Set<ShellSession>()
let exitHookInstalled = false

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    for (const session of live) session.killNow()
  })
}

function setRef(stream: unknown, ref: boolean): void {
  if (stream instanceof Socket) {
    if (ref) stream.ref()
    else stream.unref()
  }
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code
  if (signal !== null) return 128 + (constants.signals[signal] ?? 0)
  return -1
}

export class ShellSession {
  private readonly token = randomBytes(16).toString('hex')
  private child: ChildProcess | null = null
  private onData: ((chunk: Buffer) => void) | null = null
  private stderrTail = ''
  private spawnError: NodeJS.ErrnoException | null = null
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null
  // Settles once bash has exited and its output pipe is drained (or never started at all).
  private readonly ended: Promise<void>
  private hasEnded = false
  private onEnd: (() => void) | null = null
  /** The working directory reported after the last command. */
  cwd: string
  private markEnded: () => void = () => {}

  private constructor(private readonly config: SessionConfig) {
    this.cwd = config.workspace
    this.ended = new Promise((resolve) => {
      this.markEnded = () => {
        if (this.hasEnded) return
        this.hasEnded = true
        resolve()
        this.onEnd?.()
      }
    })
  }

  /** Starts bash and waits until it answers, so a broken sandbox is reported right away. */
  static async start(config: SessionConfig): Promise<ShellSession> {
    const session = new ShellSession(config)
    session.spawn()
    const nonce = newNonce()
    const script =
      'exec 2>&1\n' +
      `cd -- ${shellQuote(config.cwd)} 2>/dev/null || cd -- ${shellQuote(config.workspace)}\n` +
      markerLine(nonce)
    const outcome = await session.exchange(
      script,
      nonce,
      STARTUP_TIMEOUT_MS,
      new OutputCapture(2000),
    )
    if (outcome.kind === 'done') return session
    session.killNow()
    throw new ToolError(session.startFailure(outcome))
  }

  get alive(): boolean {
    return this.child !== null && this.exitInfo === null && this.spawnError === null
  }

  private spawn(): void {
    const { config } = this
    const env: Record<string, string> = { ...config.env, [SESSION_TAG]: this.token }
    let file = 'bash'
    let args = ['--noprofile', '--norc']
    if (config.sandbox) {
      const bwrap = findBwrap(env.PATH)
      if (bwrap === null) throw new ToolError(BWRAP_MISSING)
      file = bwrap
      args = [...bwrapArgs({ ...config, cwd: config.workspace }), 'bash', ...args]
    }
    // Detached: bash (or bwrap) leads its own process group, which we can kill as a whole.
    const child = spawn(file, args, {
      cwd: config.workspace,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.child = child
    live.add(this)
    installExitHook()
    setRef(child.stdin, false)
    setRef(child.stderr, false)
    this.hold(false)
    // A write after bash died raises EPIPE here; the exit handler reports the real story.
    child.stdin?.on('error', () => {})
    child.stdout?.on('data', (chunk: Buffer) => this.onData?.(chunk))
    child.stderr?.on('data', (chunk: Buffer) => {
      // After `exec 2>&1` only bwrap itself writes here, to say why it could not start.
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEEP)
    })
    child.on('error', (error: NodeJS.ErrnoException) => {
      this.spawnError = error
      live.delete(this)
      this.markEnded()
    })
    child.on('exit', (code, signal) => {
      this.exitInfo = { code, signal }
      live.delete(this)
      // Leftover background processes would hold the pipe open; they die with the session.
      killSessionTree(this.token)
      const stdout = child.stdout
      if (!stdout || stdout.readableEnded || stdout.destroyed) {
        this.markEnded()
        return
      }
      const timer = setTimeout(() => this.markEnded(), DRAIN_MS)
      timer.unref()
      stdout.once('close', () => {
        clearTimeout(timer)
        this.markEnded()
      })
    })
  }

  private startFailure(outcome: RunOutcome): string {
    const error = this.spawnError
    if (error?.code === 'ENOENT') {
      return this.config.sandbox ? BWRAP_MISSING : 'bash is not installed or not on PATH.'
    }
    const detail =
      this.stderrTail.trim() ||
      error?.message ||
      (outcome.kind === 'timeout'
        ? `no answer within ${STARTUP_TIMEOUT_MS / 1000} s`
        : `exit code ${exitCodeOf(this.exitInfo?.code ?? null, this.exitInfo?.signal ?? null)}`)
    if (!this.config.sandbox) return `bash failed to start: ${detail}`
    return (
      `the sandbox (bubblewrap) failed to start: ${detail}. bubblewrap needs user namespaces or ` +
      'root; if this machine cannot provide them, create the ShellTool with `sandbox: false` ' +
      '(trusted use only).'
    )
  }

  /** Runs one command. Resolves when its end marker arrives, bash exits, or time runs out. */
  async run(cmd: string, timeoutMs: number, maxOutputChars: number): Promise<RunOutcome> {
    const frame = frameCommand(cmd)
    return this.exchange(frame.script, frame.nonce, timeoutMs, new OutputCapture(maxOutputChars))
  }

  private exchange(
    script: string,
    nonce: string,
    timeoutMs: number,
    capture: OutputCapture,
  ): Promise<RunOutcome> {
    return new Promise((resolve) => {
      const scanner = new MarkerScanner(nonce, (chunk) => capture.push(chunk))
      let settled = false
      let timedOut = false
      const settle = (outcome: RunOutcome) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        this.onData = null
        this.onEnd = null
        this.hold(false)
        resolve(outcome)
      }
      const timer = setTimeout(
        () => {
          timedOut = true
          this.killNow()
        },
        Math.min(timeoutMs, 2 ** 31 - 1),
      )
      this.onData = (chunk) => {
        const marker = scanner.feed(chunk)
        if (marker) {
          // `unset PWD` leaves the marker without a folder; keep the last one we knew.
          if (marker.cwd !== '') this.cwd = marker.cwd
          settle({
            kind: 'done',
            exitCode: marker.exitCode,
            cwd: this.cwd,
            output: capture.text(),
          })
        }
      }
      const onEnd = () => {
        scanner.flush()
        if (timedOut) {
          settle({ kind: 'timeout', output: capture.text() })
          return
        }
        const info = this.exitInfo
        settle({
          kind: 'exited',
          exitCode: exitCodeOf(info?.code ?? null, info?.signal ?? null),
          output: capture.text(),
        })
      }
      this.onEnd = onEnd
      this.hold(true)
      if (this.hasEnded) onEnd()
      else this.child?.stdin?.write(script)
    })
  }

  /**
   * An idle session must not keep the application alive, but while a command runs (or while we
   * wait for a killed session to exit) the child and its output pipe must, or Node would exit
   * with the call's promise still pending.
   */
  private hold(ref: boolean): void {
    const child = this.child
    if (child === null) return
    if (ref) child.ref()
    else child.unref()
    setRef(child.stdout, ref)
  }

  /** SIGKILLs bash and everything it started, synchronously. */
  killNow(): void {
    const child = this.child
    if (child === null) return
    const unreaped =
      child.exitCode === null && child.signalCode === null && this.spawnError === null
    const pid = unreaped ? child.pid : undefined
    killSessionTree(this.token, pid)
    live.delete(this)
  }

  /** Kills the session and waits until it is gone (bounded by the drain delay). */
  async kill(): Promise<void> {
    this.killNow()
    if (this.child === null) return
    this.hold(true)
    await this.ended
    this.hold(false)
  }
}
