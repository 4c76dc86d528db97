import type { EgressOptions } from './egress/policy.js'
import type { SandboxLimits } from './limits.js'

export type RunLanguage = 'python' | 'bash'

/** A file's content: whole bytes or a stream of byte chunks of any size. */
export type InputContent = Uint8Array | AsyncIterable<Uint8Array>

export interface RunRequest {
  language: RunLanguage
  code: string
}

/** One captured stream: at most the cap, as its head and its tail around an elision marker. */
export interface CapturedOutput {
  text: string
  /** Bytes the run wrote to the stream, kept or not. */
  bytes: number
  truncated: boolean
}

export interface RunResult {
  /** 0 on success; 1 for an uncaught Python exception; the shell's status for Bash; 137 when killed. */
  exitCode: number
  stdout: CapturedOutput
  stderr: CapturedOutput
  durationMs: number
  /** The run passed the run timeout and was killed with everything it started. */
  timedOut: boolean
  /** The caller's signal aborted the run; it was killed with everything it started. */
  cancelled: boolean
  /** The Python kernel was started again: variables and imports from earlier runs are gone. */
  kernelRestarted: boolean
}

export interface RunOptions {
  /**
   * Aborting kills the run with everything it started (as a timeout does) and resolves with a
   * `cancelled` result; the sandbox stays usable. A run still queued behind another is not started.
   */
  signal?: AbortSignal
}

/** Limits over the driver's defaults, and the sandbox's network: none unless `egress` allows. */
export interface CreateOptions extends Partial<SandboxLimits> {
  egress?: EgressOptions
}

export interface SandboxHandle {
  id: string
  limits: SandboxLimits
  createdAt: number
}

/** A regular file found under `/mnt/output/`, by its path relative to that folder. */
export interface OutputFile {
  path: string
  bytes: number
}

export interface SandboxInfo {
  id: string
  createdAt: number
  /** False for a sandbox left by an earlier process (an orphan), which only destroy can act on. */
  attached: boolean
}

/**
 * A place that runs containers. The local driver (bubblewrap + cgroups) is the embedded default;
 * other drivers (Docker Engine API, Kubernetes) implement the same port.
 */
export interface SandboxDriver {
  readonly name: string
  /** Whether `create` can give a sandbox network (`egress`); else it refuses egress options. */
  readonly egress: boolean
  /** Starts a container with the given limits and waits until it can run code. */
  create(options?: CreateOptions): Promise<SandboxHandle>
  run(id: string, request: RunRequest, options?: RunOptions): Promise<RunResult>
  /**
   * Writes a file under `/mnt/input/` (path relative to it, folders created as needed). A stream
   * is written piece by piece as it is read, never held whole.
   */
  putInput(id: string, path: string, content: InputContent): Promise<void>
  listOutput(id: string): Promise<OutputFile[]>
  /** Reads a file under `/mnt/output/`; larger than `maxBytes` is a `file_too_large` error. */
  readOutput(id: string, path: string, maxBytes?: number): Promise<Buffer>
  /**
   * The same file as a stream of pieces (CHUNK_BYTES at most), each read from the sandbox when
   * asked for: what copies large outputs elsewhere uses, holding one piece at a time.
   */
  readOutputChunks(id: string, path: string, maxBytes?: number): AsyncIterable<Buffer>
  /** Removes everything: processes, cgroups, disk, files. Idempotent; works on orphans too. */
  destroy(id: string): Promise<void>
  /** Sandboxes alive on this host, including orphans of an earlier process, for cleanup at start. */
  list(): Promise<SandboxInfo[]>
  /** Detaches from the driver's resources; sandboxes it created are destroyed. */
  close(): Promise<void>
}

export class SandboxError extends Error {
  constructor(
    message: string,
    readonly code:
      | 'sandbox_not_found'
      | 'invalid_path'
      | 'file_not_found'
      | 'file_too_large'
      | 'sandbox_failed',
  ) {
    super(message)
    this.name = 'SandboxError'
  }
}
