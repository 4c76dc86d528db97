import { extname } from 'node:path'

const GENERIC = 'application/octet-stream'
// type/subtype from RFC 6838's restricted names; parameters (charset) are dropped.
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/

const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.xls': 'application/vnd.ms-excel',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.zip': 'application/zip',
  '.py': 'text/x-python',
  '.parquet': 'application/vnd.apache.parquet',
}

/** A client-sent media type if it is well formed, else the generic binary type. */
export function cleanMimeType(value: string | undefined): string {
  const base = value?.split(';')[0]?.trim().toLowerCase() ?? ''
  return MIME.test(base) ? base : GENERIC
}

/** The media type a filename's extension suggests, for files written by code. */
export function mimeTypeFor(filename: string): string {
  const ext = extname(filename).toLowerCase()
  return Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext]! : GENERIC
}
