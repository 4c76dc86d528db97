import type { Readable } from 'node:stream'

/** A body was larger than the caller allowed; the connection was dropped instead of reading on. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError'
}

/** Reads a whole body as UTF-8, failing (and dropping the connection) past `limit` bytes. */
export function readBody(body: Readable, limit: number): Promise<string> {
  return collect(body, limit, false)
}

/**
 * Reads at most `limit` bytes of a body and then drops the rest. Never fails: an error body is
 * read only to quote it, and the status already says what went wrong.
 */
export function readBodyPrefix(body: Readable, limit: number): Promise<string> {
  return collect(body, limit, true).catch(() => '')
}

function collect(body: Readable, limit: number, truncate: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = () => resolve(text(chunks, size))
    body.on('data', (chunk: Buffer) => {
      if (size + chunk.length > limit) {
        if (truncate) chunks.push(chunk.subarray(0, limit - size))
        size = Math.min(size + chunk.length, limit)
        body.destroy()
        if (truncate) finish()
        else reject(new BodyTooLargeError(`the body is larger than ${limit} bytes`))
        return
      }
      chunks.push(chunk)
      size += chunk.length
    })
    body.on('end', finish)
    body.on('error', reject)
  })
}

function text(chunks: Buffer[], size: number): string {
  if (chunks.length === 1) return chunks[0]!.toString('utf8')
  return Buffer.concat(chunks, size).toString('utf8')
}
