import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream, mkdirSync } from 'node:fs'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { type BlobStore, BlobTooLargeError } from './port.js'

/** Keys are made by the server; this shape keeps any other string out of the file system. */
const KEY = /^[A-Za-z0-9_-]{1,128}$/

/** The folder of blobs inside the server's home. */
export const BLOBS_FOLDER = 'blobs'

/** A new random blob key: 128 bits, URL- and path-safe. */
export function newBlobKey(): string {
  return randomBytes(16).toString('base64url')
}

function checkKey(key: string): void {
  if (!KEY.test(key)) throw new Error('a blob key must be 1 to 128 letters, digits, - or _')
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT'
}

/**
 * Blobs as files under `<home>/blobs`: `ab/cd/<key>`, sharded by a hash of the key so that no
 * folder holds more than 256 folders, and files spread evenly. Each write goes to `tmp/` first,
 * is flushed to disk and renamed into place (atomic on one file system), so a crash never leaves
 * half a blob under a key. Folders are 0700 and files 0600: other users of the machine cannot
 * read uploads.
 */
export class LocalBlobStore implements BlobStore {
  readonly root: string
  private readonly tmp: string

  constructor(home: string) {
    this.root = join(home, BLOBS_FOLDER)
    this.tmp = join(this.root, 'tmp')
    mkdirSync(this.tmp, { recursive: true, mode: 0o700 })
  }

  /** Where a key's blob lives. */
  pathOf(key: string): string {
    checkKey(key)
    const hash = createHash('sha256').update(key).digest('hex')
    return join(this.root, hash.slice(0, 2), hash.slice(2, 4), key)
  }

  async put(
    key: string,
    content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: { maxBytes: number },
  ): Promise<{ bytes: number }> {
    const target = this.pathOf(key)
    const temp = join(this.tmp, `${newBlobKey()}.part`)
    let bytes = 0
    try {
      await pipeline(
        content,
        async function* capped(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
          for await (const chunk of source) {
            bytes += chunk.byteLength
            if (bytes > options.maxBytes) throw new BlobTooLargeError(options.maxBytes)
            yield chunk
          }
        },
        createWriteStream(temp, { flags: 'wx', mode: 0o600 }),
      )
      // On disk before it gets a name: a crash after the rename must not leave an empty blob.
      const written = await open(temp, 'r')
      await written.sync().finally(() => written.close())
      await mkdir(join(target, '..'), { recursive: true, mode: 0o700 })
      await rename(temp, target)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
    return { bytes }
  }

  async get(key: string): Promise<Readable | null> {
    try {
      const handle = await open(this.pathOf(key), 'r')
      return handle.createReadStream()
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true })
  }
}
