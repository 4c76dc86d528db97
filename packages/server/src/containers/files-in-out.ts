import { createHash } from 'node:crypto'
import { basename } from 'node:path'
import type { SandboxDriver } from '@syntic/sandbox'
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
    const chunks: Buffer[] = []
    for await (const chunk of opened.content) chunks.push(chunk as Buffer)
    await driver.putInput(sandboxId, record.filename, Buffer.concat(chunks))
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
      const data = await this.driver.readOutput(this.sandboxId, output.path, this.files.maxBytes)
      this.seen.set(output.path, digest(data))
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
      const data = await this.driver.readOutput(this.sandboxId, output.path, this.files.maxBytes)
      const hash = digest(data)
      if (this.seen.get(output.path) === hash) continue
      if (result.created.length >= OUTPUT_FILES_PER_RUN_MAX) {
        result.skipped.push(
          `${output.path}: more than ${OUTPUT_FILES_PER_RUN_MAX} new files in one run, not saved`,
        )
        continue
      }
      this.seen.set(output.path, hash)
      const filename = basename(output.path)
      try {
        result.created.push(
          await this.files.create({
            scope: this.scope,
            filename,
            mimeType: mimeTypeFor(filename),
            purpose: 'code_output',
            source: 'code_execution',
            containerId: this.containerId,
            content: data,
          }),
        )
      } catch (error) {
        if (!(error instanceof InvalidFilenameError)) throw error
        result.skipped.push(`${output.path}: ${error.message}, not saved`)
      }
    }
    return result
  }
}

function digest(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
}
