import type { Readable } from 'node:stream'

/** A blob larger than the cap its writer set; nothing of it is kept. */
export class BlobTooLargeError extends Error {
  override name = 'BlobTooLargeError'
  constructor(readonly maxBytes: number) {
    super(`the content is larger than the limit of ${maxBytes} bytes`)
  }
}

/**
 * Where file contents live, by key; their metadata is in the store. The embedded adapter is a
 * local folder (`LocalBlobStore`). Servers on several machines need a shared one: an
 * S3-compatible object store (put as a multipart upload, get as a ranged GET, delete) fits this
 * port unchanged; it is not built yet.
 */
export interface BlobStore {
  /**
   * Stores the stream under `key`, all or nothing: a reader never sees a partial blob. Past
   * `maxBytes` it stops reading, keeps nothing and rejects with BlobTooLargeError.
   */
  put(
    key: string,
    content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: { maxBytes: number },
  ): Promise<{ bytes: number }>
  /** The content as a stream, or null when there is no such blob. */
  get(key: string): Promise<Readable | null>
  /** Removes the blob; a missing one is not an error. */
  delete(key: string): Promise<void>
}
