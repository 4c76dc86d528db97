import type { Readable } from 'node:stream'
import { newBlobKey } from '../blobs/local-blob-store.js'
import type { BlobStore } from '../blobs/port.js'
import type { FilePage, FilePurpose, FileRecord, FileSource, Scope, Store } from '../store/port.js'
import { checkFilename } from './filename.js'

/** A filename refused by `checkFilename`; the message says why. */
export class InvalidFilenameError extends Error {
  override name = 'InvalidFilenameError'
}

/** An upload with no bytes, when the caller asked for content. */
export class EmptyFileError extends Error {
  override name = 'EmptyFileError'
  constructor() {
    super('the file is empty')
  }
}

export interface NewFileContent {
  scope: Scope
  filename: string
  mimeType: string
  purpose: FilePurpose
  source: FileSource
  /** The container that wrote it (`code_execution` files). */
  containerId?: string | null
  content: AsyncIterable<Uint8Array> | Uint8Array
  /** Refuse an empty file with EmptyFileError (uploads); code may write empty files. */
  rejectEmpty?: boolean
}

/**
 * Files: metadata in the store, content in the blob store, always within one workspace. Used by
 * the Files API and by code execution (files written to `/mnt/output/` become `code_execution`
 * files). Content streams through; nothing is held whole in memory.
 */
export class FileService {
  constructor(
    private readonly store: Store,
    private readonly blobs: BlobStore,
    /** Largest content accepted; past it `create` rejects with BlobTooLargeError. */
    readonly maxBytes: number,
  ) {}

  /**
   * Stores the content, then its metadata. Rejects with InvalidFilenameError, EmptyFileError or
   * BlobTooLargeError, keeping nothing.
   */
  async create(input: NewFileContent): Promise<FileRecord> {
    const problem = checkFilename(input.filename)
    if (problem !== null) throw new InvalidFilenameError(problem)
    const blobKey = newBlobKey()
    const content = input.content instanceof Uint8Array ? [input.content] : input.content
    const { bytes } = await this.blobs.put(blobKey, content, { maxBytes: this.maxBytes })
    try {
      if (bytes === 0 && input.rejectEmpty) throw new EmptyFileError()
      return await this.store.createFile({
        org: input.scope.org,
        workspace: input.scope.workspace,
        filename: input.filename,
        bytes,
        mimeType: input.mimeType,
        purpose: input.purpose,
        source: input.source,
        blobKey,
        containerId: input.containerId ?? null,
      })
    } catch (error) {
      await this.blobs.delete(blobKey)
      throw error
    }
  }

  get(scope: Scope, id: string): Promise<FileRecord | null> {
    return this.store.getFile(scope, id)
  }

  list(scope: Scope, page: { limit: number; after?: string }): Promise<FilePage> {
    return this.store.listFiles(scope, page)
  }

  /** The file and its content stream; null when the workspace has no such file. */
  async open(scope: Scope, id: string): Promise<{ file: FileRecord; content: Readable } | null> {
    const file = await this.store.getFile(scope, id)
    if (file === null) return null
    const content = await this.blobs.get(file.blobKey)
    if (content === null) throw new Error(`the content of ${file.id} is missing from the blobs`)
    return { file, content }
  }

  /** Removes the file; its content goes after the row, so a reader never finds a row without it. */
  async delete(scope: Scope, id: string): Promise<FileRecord | null> {
    const file = await this.store.deleteFile(scope, id)
    if (file !== null) await this.blobs.delete(file.blobKey)
    return file
  }
}
