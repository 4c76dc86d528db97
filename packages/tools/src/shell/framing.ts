import { randomBytes } from 'node:crypto'

// How one command travels through the persistent bash session and how we know it finished.
//
// The command text never reaches bash's parser directly: it is wrapped in a single-quoted `eval`
// argument, so a syntax error (an unclosed quote, a stray `fi`) stays inside eval and cannot
// swallow the lines that follow. The next line prints an end marker carrying a fresh random
// nonce, the exit status and the working directory. The marker's literal text never appears in
// what we send (printf assembles it from `%s` pieces), so even `set -x` tracing cannot fake it.

export interface Frame {
  /** The bytes to write to bash's stdin. */
  script: string
  nonce: string
}

export function newNonce(): string {
  return randomBytes(12).toString('hex')
}

/** Single-quotes a string for bash: the only character needing care inside '...' is ' itself. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

function startToken(nonce: string): string {
  return `__syntic_${nonce}__:`
}

function endToken(nonce: string): string {
  return `:__${nonce}__\n`
}

/** The marker line alone, for text we write ourselves (session setup). */
export function markerLine(nonce: string): string {
  // The braces with stderr to /dev/null keep the line out of `set -x` traces.
  return `{ printf '__syntic_%s__:%s:%s:__%s__\\n' ${nonce} "$?" "\${PWD-}" ${nonce}; } 2>/dev/null\n`
}

/**
 * Frames a command. Its stdin is /dev/null so a program waiting for input gets EOF at once
 * instead of reading the rest of our protocol from the session's stdin.
 */
export function frameCommand(cmd: string, nonce = newNonce()): Frame {
  return { script: `eval ${shellQuote(cmd)} < /dev/null\n${markerLine(nonce)}`, nonce }
}

export interface MarkerResult {
  exitCode: number
  cwd: string
}

const EMPTY = Buffer.alloc(0)
// PATH_MAX is 4096; anything longer between the two tokens is not our marker.
const MAX_TRAILER = 16 * 1024

/**
 * Splits the session's output stream into the command's output and the end marker. Only a
 * carry of a few dozen bytes is held between reads, so the stream itself is never accumulated.
 */
export class MarkerScanner {
  private readonly start: Buffer
  private readonly end: Buffer
  private carry: Buffer = EMPTY
  private trailer: Buffer | null = null
  private result: MarkerResult | null = null

  constructor(
    nonce: string,
    private readonly emit: (chunk: Buffer) => void,
  ) {
    this.start = Buffer.from(startToken(nonce))
    this.end = Buffer.from(endToken(nonce))
  }

  get done(): MarkerResult | null {
    return this.result
  }

  /** Feeds a chunk; returns the marker once it has been seen. Bytes after it are discarded. */
  feed(chunk: Buffer): MarkerResult | null {
    if (this.result) return this.result
    if (this.trailer) return this.feedTrailer(chunk)
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk
    const at = data.indexOf(this.start)
    if (at >= 0) {
      if (at > 0) this.emit(data.subarray(0, at))
      this.carry = EMPTY
      this.trailer = EMPTY
      return this.feedTrailer(data.subarray(at + this.start.length))
    }
    // Hold back just enough bytes to recognise a start token split across two reads.
    const keep = Math.min(this.start.length - 1, data.length)
    if (data.length > keep) this.emit(data.subarray(0, data.length - keep))
    this.carry = Buffer.from(data.subarray(data.length - keep))
    return null
  }

  /** Bytes held back while looking for a split token; they are output once the stream ends. */
  flush(): void {
    if (this.carry.length > 0) this.emit(this.carry)
    this.carry = EMPTY
  }

  private feedTrailer(chunk: Buffer): MarkerResult | null {
    const trailer = Buffer.concat([this.trailer ?? EMPTY, chunk])
    const at = trailer.indexOf(this.end)
    if (at < 0) {
      this.trailer =
        trailer.length > MAX_TRAILER ? trailer.subarray(trailer.length - MAX_TRAILER) : trailer
      return null
    }
    const body = trailer.subarray(0, at).toString('utf8')
    const colon = body.indexOf(':')
    const exitCode = Number.parseInt(body.slice(0, colon), 10)
    this.result = {
      exitCode: Number.isFinite(exitCode) ? exitCode : -1,
      cwd: body.slice(colon + 1),
    }
    this.trailer = null
    return this.result
  }
}
