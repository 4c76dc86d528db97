import type { Readable, Writable } from 'node:stream'
import type { ToolHandler } from './handler.js'
import { failure, type ToolResult } from './result.js'

/** Longest request line the process accepts; longer ones are skipped with an error line. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024

interface Line {
  number: number
  text?: string
  /** Set when the line was over the limit and its bytes were dropped. */
  oversized?: number
}

/**
 * Splits a byte stream into lines without ever holding more than `maxBytes` of one line, so a
 * client that never sends a newline cannot exhaust memory.
 */
export async function* readLines(input: Readable, maxBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  let parts: Buffer[] = []
  let size = 0
  let dropped = 0
  let number = 0
  const finish = (): Line => {
    number++
    const line: Line =
      dropped > 0
        ? { number, oversized: size + dropped }
        : { number, text: Buffer.concat(parts).toString('utf8').replace(/\r$/, '') }
    parts = []
    size = 0
    dropped = 0
    return line
  }
  for await (const raw of input as AsyncIterable<Buffer | string>) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start)
      const end = newline === -1 ? chunk.length : newline
      const piece = chunk.subarray(start, end)
      if (dropped > 0 || size + piece.length > maxBytes) dropped += piece.length
      else {
        parts.push(piece)
        size += piece.length
      }
      if (newline === -1) break
      yield finish()
      start = newline + 1
    }
  }
  if (size > 0 || dropped > 0) yield finish()
}

type Reply = { id: unknown } & ToolResult

function parseRequest(
  line: Line,
  maxBytes: number,
): { id: unknown; input?: unknown; error?: string } {
  if (line.oversized !== undefined) {
    return {
      id: null,
      error: `line ${line.number} is ${line.oversized} bytes, over the limit of ${maxBytes}; it was skipped`,
    }
  }
  let message: unknown
  try {
    message = JSON.parse(line.text ?? '')
  } catch (error) {
    return {
      id: null,
      error: `line ${line.number} is not valid JSON (${(error as Error).message})`,
    }
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return {
      id: null,
      error: `line ${line.number} must be a JSON object {"id": ..., "input": {...}}`,
    }
  }
  const record = message as Record<string, unknown>
  const id = record.id ?? null
  if (!('input' in record)) return { id, error: `line ${line.number} has no "input" field` }
  return { id, input: record.input }
}

/**
 * The JSON-lines tool process: one call per line in, `{"id","output","is_error"}` per line out,
 * in order. A malformed line gets an error line; the process keeps going.
 */
export async function serveJsonLines(
  handler: ToolHandler,
  input: Readable,
  output: Writable,
  maxBytes = MAX_LINE_BYTES,
): Promise<void> {
  const write = (reply: Reply) =>
    new Promise<void>((resolve, reject) => {
      output.write(`${JSON.stringify(reply)}\n`, (error) => (error ? reject(error) : resolve()))
    })
  try {
    for await (const line of readLines(input, maxBytes)) {
      if (line.text !== undefined && line.text.trim() === '') continue
      const request = parseRequest(line, maxBytes)
      const result =
        request.error === undefined ? await handler.run(request.input) : failure(request.error)
      await write({ id: request.id, ...result })
    }
  } finally {
    await handler.close?.()
  }
}
