// The `syntic_shell` tool: a persistent bash session the model drives with `run` and `restart`.
//
// Output format of `run` (keep it exactly; the model is tuned on it):
//
//   <stdout and stderr, interleaved in the order they were written>
//   [exit code: N]
//
// The exit line is always the last line and always present when the command ran to completion;
// with no output it is the only line. A nonzero exit code is a normal result (is_error false).
// Output longer than maxOutputChars keeps its head and tail around one marker line:
//
//   [... 123456 characters dropped ...]
//
// Bracketed note lines may precede the exit line (or the output) to report session changes:
//
//   [the shell session ended; a fresh session starts in /ws on the next call]
//   [the previous shell session had ended; this command ran in a fresh session in /ws]
//
// Failures are single `Error: ...` texts with is_error true: bad input, a declined destructive
// command (nothing ran), a timeout (the command and all it started were killed, the session was
// restarted in the same folder with variables and functions reset; output so far follows), or a
// sandbox that cannot start.

import { realpath, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { checkToolInput } from '@syntic/protocol'
import type { ToolHandler } from '../handler.js'
import { failure, runSafely, success, ToolError, type ToolResult } from '../result.js'
import { classify } from './classifier.js'
import { sessionEnvironment } from './environment.js'
import { ShellSession } from './session.js'

export interface ConfirmRequest {
  cmd: string
  reasons: string[]
}

export interface ShellOptions {
  /** The workspace folder; the session starts there (must exist). */
  cwd: string
  /** Output beyond this many characters is cut to its head and tail. Default 20000. */
  maxOutputChars?: number
  /** Default 120; the model's timeout_seconds is capped at maxTimeoutSeconds. */
  defaultTimeoutSeconds?: number
  /** Default 600. */
  maxTimeoutSeconds?: number
  /** Default true: run inside bubblewrap. */
  sandbox?: boolean
  /** Default false: no network in the sandbox unless true. */
  network?: boolean
  /** Asked before a destructive command; without it such commands are declined. */
  confirm?: (request: ConfirmRequest) => boolean | Promise<boolean>
  /** Extra environment variables. */
  env?: Record<string, string>
}

// Commands are framed through bash's stdin; a model never needs more than this in one call,
// and longer text belongs in a file written with the editor.
const MAX_CMD_CHARS = 100_000

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`ShellOptions.${name} must be a positive number, got ${value}`)
  }
  return value
}

function formatSeconds(seconds: number): string {
  return `${Number(seconds.toFixed(3))} s`
}

function withExitLine(output: string, notes: string[], exitCode: number): string {
  let text = output
  if (text !== '' && !text.endsWith('\n')) text += '\n'
  for (const note of notes) text += `${note}\n`
  return `${text}[exit code: ${exitCode}]`
}

export class ShellTool implements ToolHandler {
  readonly name = 'syntic_shell' as const
  private readonly maxOutputChars: number
  private readonly defaultTimeout: number
  private readonly maxTimeout: number
  private session: ShellSession | null = null
  private workspace: string | null = null
  // Where the next session starts; follows the session's cwd after every command.
  private cwd: string | null = null
  private queue: Promise<unknown> = Promise.resolve()
  private closed = false

  constructor(private readonly options: ShellOptions) {
    if (typeof options.cwd !== 'string' || options.cwd === '') {
      throw new TypeError('ShellOptions.cwd must be the workspace folder')
    }
    this.maxOutputChars = Math.max(
      1,
      Math.floor(positive('maxOutputChars', options.maxOutputChars, 20_000)),
    )
    this.maxTimeout = positive('maxTimeoutSeconds', options.maxTimeoutSeconds, 600)
    this.defaultTimeout = Math.min(
      positive('defaultTimeoutSeconds', options.defaultTimeoutSeconds, 120),
      this.maxTimeout,
    )
  }

  /** Runs one tool call. Calls are handled one at a time, in order. Never throws. */
  run(input: unknown): Promise<ToolResult> {
    const next = this.queue.then(() => runSafely(() => this.handle(input)))
    this.queue = next
    return next
  }

  /** Kills the session and everything it started. Later calls return an error. */
  async close(): Promise<void> {
    this.closed = true
    const session = this.session
    this.session = null
    await session?.kill()
  }

  private async handle(input: unknown): Promise<ToolResult> {
    const checked = checkToolInput('syntic_shell', input)
    if (!checked.ok) return failure(checked.error)
    if (this.closed) return failure('the shell tool has been closed; no more commands can run')
    const call = checked.value
    if (call.command === 'restart') return this.restart()
    return this.runCommand(call.cmd, call.timeout_seconds)
  }

  private async resolveWorkspace(): Promise<string> {
    if (this.workspace !== null) return this.workspace
    const dir = this.options.cwd
    let real: string
    try {
      real = await realpath(dir)
    } catch {
      throw new ToolError(`the workspace folder ${dir} does not exist`)
    }
    if (!(await stat(real)).isDirectory()) {
      throw new ToolError(`the workspace ${dir} is not a folder`)
    }
    this.workspace = real
    return real
  }

  private async startSession(cwd: string): Promise<ShellSession> {
    const workspace = await this.resolveWorkspace()
    const session = await ShellSession.start({
      workspace,
      cwd,
      sandbox: this.options.sandbox ?? true,
      network: this.options.network ?? false,
      home: homedir(),
      env: sessionEnvironment(this.options.env, this.options.sandbox ?? true),
    })
    if (this.closed) {
      await session.kill()
      throw new ToolError('the shell tool has been closed; no more commands can run')
    }
    this.session = session
    this.cwd = session.cwd
    return session
  }

  private async restart(): Promise<ToolResult> {
    const workspace = await this.resolveWorkspace()
    const old = this.session
    this.session = null
    await old?.kill()
    const session = await this.startSession(workspace)
    return success(
      `The shell session was restarted: a fresh bash session is running in ${session.cwd}. ` +
        'Variables, functions and background processes from before are gone.',
    )
  }

  private timeoutSeconds(requested: number | undefined): number {
    if (requested === undefined) return this.defaultTimeout
    if (!Number.isFinite(requested) || requested <= 0) {
      throw new ToolError(
        `"timeout_seconds" must be a positive number of seconds, got ${requested}`,
      )
    }
    return Math.min(requested, this.maxTimeout)
  }

  private async confirmed(cmd: string, reasons: string[]): Promise<boolean> {
    const confirm = this.options.confirm
    if (!confirm) return false
    try {
      return (await confirm({ cmd, reasons })) === true
    } catch {
      return false
    }
  }

  private async runCommand(cmd: string, requestedTimeout: number | undefined): Promise<ToolResult> {
    if (cmd.includes('\0')) return failure('cmd contains a NUL character, which bash cannot run')
    if (cmd.trim() === '') return failure('cmd is empty; pass the shell command to run')
    if (cmd.length > MAX_CMD_CHARS) {
      return failure(
        `cmd is ${cmd.length} characters long; the limit is ${MAX_CMD_CHARS}. Write long ` +
          'content to a file first (for example with the text editor) and run that.',
      )
    }
    const seconds = this.timeoutSeconds(requestedTimeout)
    const workspace = await this.resolveWorkspace()
    // The sandbox's /tmp is a private tmpfs that vanishes with the session: writing there is safe.
    const scratch = (this.options.sandbox ?? true) ? ['/tmp'] : []
    const reasons = classify(cmd, { workspace, cwd: this.cwd ?? workspace, scratch })
    if (reasons.length > 0 && !(await this.confirmed(cmd, reasons))) {
      return failure(
        `the user declined to run this command (${reasons.join('; ')}). Nothing was run.`,
      )
    }
    if (this.closed) return failure('the shell tool has been closed; no more commands can run')

    let session = this.session
    const lost = session !== null && !session.alive
    if (lost) this.session = session = null
    session ??= await this.startSession(this.cwd ?? workspace)
    const prefix = lost
      ? `[the previous shell session had ended; this command ran in a fresh session in ${session.cwd}]\n`
      : ''

    const outcome = await session.run(cmd, seconds * 1000, this.maxOutputChars)
    if (outcome.kind === 'done') {
      this.cwd = outcome.cwd
      return success(prefix + withExitLine(outcome.output, [], outcome.exitCode))
    }
    this.session = null
    if (this.closed) {
      return failure('the shell tool was closed while the command was running')
    }
    if (outcome.kind === 'exited') {
      this.cwd = workspace
      const note = `[the shell session ended; a fresh session starts in ${workspace} on the next call]`
      return success(prefix + withExitLine(outcome.output, [note], outcome.exitCode))
    }
    let restarted: string
    try {
      const fresh = await this.startSession(this.cwd ?? workspace)
      restarted = `The shell session was restarted in ${fresh.cwd}; shell variables and functions were reset.`
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error)
      restarted = `The shell session could not be restarted (${why}); the next call will try again.`
    }
    const output =
      outcome.output === ''
        ? ' It printed nothing.'
        : ` Output before the timeout:\n${outcome.output}`
    // Only the sandbox's pid namespace catches a process that cleared its environment and
    // detached itself; without it, say what was actually done.
    const killed =
      (this.options.sandbox ?? true)
        ? 'together with every process it started'
        : 'together with the processes it started that stayed in its session (without the sandbox, a process that detached itself may survive)'
    return failure(
      `the command timed out after ${formatSeconds(seconds)} and was killed, ${killed}. ${restarted}${output}`,
    )
  }
}
