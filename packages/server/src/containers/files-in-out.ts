import { createHash, type Hash } from 'node:crypto'
import { basename } from 'node:path'
import { type SandboxDriver, SandboxError } from '@syntic/sandbox'
import { BlobTooLargeError } from '../blobs/port.js'
import { type FileService, InvalidFilenameError } from '../files/file-service.js'
import { mimeTypeFor } from '../files/mime-type.js'
import type { FileRecord, Scope } from '../store/port.js'

/** Output files turned into Files per run at most; the model is told about the rest. */
export const OUTPUT_FILES_PER_RUN_MAX = 50

/** Copies the request's files into `/mnt/input/`, under their filenames. */
export async function copyInputs(
  driver: SandboxDriver,
  sandboxId: string,
  files: FileService,
  scope: Scope,
  records: readonly FileRecord[],
): Promise<void> {
  for (const record of records) {
    const opened = await files.open(scope, record.id)
    if (opened === null) continue
    try {
      await driver.putInput(sandboxId, record.filename, opened.content)
    } finally {
      opened.content.destroy()
    }
  }
}

export interface CollectedOutputs {
  created: FileRecord[]
  /** What could not become a File, with why, for the model. */
  skipped: string[]
}

/**
 * Turns what code wrote to `/mnt/output/` into Files, once per path and content within a
 * request: a file rewritten with new content is a new File, one left as it was is not.
 */
export class OutputFiles {
  private readonly seen = new Map<string, string>()

  constructor(
    private readonly driver: SandboxDriver,
    private readonly sandboxId: string,
    private readonly files: FileService,
    private readonly scope: Scope,
    private readonly containerId: string,
  ) {}

  /** Marks what a reused container already holds as seen, so earlier requests' outputs stay out. */
  async markExisting(): Promise<void> {
    for (const output of await this.driver.listOutput(this.sandboxId)) {
      if (output.bytes > this.files.maxBytes) continue
      const hash = await this.digestOf(output.path)
      if (hash !== null) this.seen.set(output.path, hash)
    }
  }

  async collect(): Promise<CollectedOutputs> {
    const result: CollectedOutputs = { created: [], skipped: [] }
    const outputs = await this.driver.listOutput(this.sandboxId)
    for (const output of outputs) {
      if (output.bytes > this.files.maxBytes) {
        result.skipped.push(`${output.path}: larger than ${this.files.maxBytes} bytes, not saved`)
        continue
      }
      const previous = this.seen.get(output.path)
      // A path seen before is hashed first, so an unchanged file is not stored again.
      if (previous !== undefined && previous === (await this.digestOf(output.path))) continue
      if (result.created.length >= OUTPUT_FILES_PER_RUN_MAX) {
        result.skipped.push(
          `${output.path}: more than ${OUTPUT_FILES_PER_RUN_MAX} new files in one run, not saved`,
        )
        continue
      }
      const filename = basename(output.path)
      const hash = createHash('sha256')
      try {
        result.created.push(
          await this.files.create({
            scope: this.scope,
            filename,
            mimeType: mimeTypeFor(filename),
            purpose: 'code_output',
            source: 'code_execution',
            containerId: this.containerId,
            content: hashed(this.chunksOf(output.path), hash),
          }),
        )
        this.seen.set(output.path, hash.digest('hex'))
      } catch (error) {
        const why = skipReason(error, this.files.maxBytes)
        if (why === null) throw error
        result.skipped.push(`${output.path}: ${why}, not saved`)
      }
    }
    return result
  }

  private chunksOf(path: string): AsyncIterable<Buffer> {
    return this.driver.readOutputChunks(this.sandboxId, path, this.files.maxBytes)
  }

  /** The file's SHA-256, read piece by piece; null when it went away or grew past the limit. */
  private async digestOf(path: string): Promise<string | null> {
    const hash = createHash('sha256')
    try {
      for await (const chunk of this.chunksOf(path)) hash.update(chunk)
    } catch (error) {
      if (skipReason(error, this.files.maxBytes) === null) throw error
      return null
    }
    return hash.digest('hex')
  }
}

async function* hashed(chunks: AsyncIterable<Buffer>, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    hash.update(chunk)
    yield chunk
  }
}

/** Why an output could not become a File, for the model; null for a failure of the server. */
function skipReason(error: unknown, maxBytes: number): string | null {
  if (error instanceof InvalidFilenameError) return error.message
  if (error instanceof BlobTooLargeError) return `larger than ${maxBytes} bytes`
  if (error instanceof SandboxError) {
    if (error.code === 'file_too_large') return `larger than ${maxBytes} bytes`
    if (error.code === 'file_not_found' || error.code === 'invalid_path') {
      return 'removed or replaced while it was read'
    }
  }
  return null
}
