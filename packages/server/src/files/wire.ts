import type { FilePurpose, FileRecord, FileSource } from '../store/port.js'

/** A file as the API shows it (`GET /v1/files/{id}`, `message.files[]` adds nothing more). */
export interface FileObject {
  id: string
  object: 'file'
  filename: string
  bytes: number
  /** Unix seconds. */
  created_at: number
  purpose: FilePurpose
  source: FileSource
}

export function toFileObject(file: FileRecord): FileObject {
  return {
    id: file.id,
    object: 'file',
    filename: file.filename,
    bytes: file.bytes,
    created_at: Math.floor(Date.parse(file.createdAt) / 1000),
    purpose: file.purpose,
    source: file.source,
  }
}
