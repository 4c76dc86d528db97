import { looksLikeSortableId, newSortableId } from './ids.js'
import type { FilePage, FilePurpose, FileRecord, FileSource, NewFile, Scope } from './port.js'
import { type SqlRunner, scopeIds, UnknownScopeError, validScope } from './sql-runner.js'

interface FileRow {
  id: string
  org: string
  workspace: string
  filename: string
  bytes: number | string
  mime_type: string
  purpose: string
  source: string
  blob_key: string
  container_id: string | null
  created_at: string
}

const SELECT = `SELECT f.id, o.name AS org, w.name AS workspace, f.filename, f.bytes, f.mime_type,
  f.purpose, f.source, f.blob_key, f.container_id, f.created_at
  FROM files f
  JOIN orgs o ON o.id = f.org_id
  JOIN workspaces w ON w.id = f.workspace_id`

/** Greater than every file id: the start of a listing with no cursor. */
const AFTER_ALL = 'file_~'

function toRecord(row: FileRow): FileRecord {
  return {
    id: row.id,
    org: row.org,
    workspace: row.workspace,
    filename: row.filename,
    // PostgreSQL returns BIGINT as a string; sizes stay far below 2^53.
    bytes: Number(row.bytes),
    mimeType: row.mime_type,
    purpose: row.purpose as FilePurpose,
    source: row.source as FileSource,
    blobKey: row.blob_key,
    containerId: row.container_id,
    createdAt: row.created_at,
  }
}

/** The `files` table, scoped by org and workspace on every read. */
export class FilesTable {
  constructor(private readonly db: SqlRunner) {}

  async create(file: NewFile): Promise<FileRecord> {
    const ids = await scopeIds(this.db, file)
    if (ids === null) throw new UnknownScopeError()
    const now = Date.now()
    const id = newSortableId('file_', now)
    await this.db.run(
      'insertFile',
      `INSERT INTO files (id, org_id, workspace_id, filename, bytes, mime_type, purpose, source,
        blob_key, container_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        ids.orgId,
        ids.workspaceId,
        file.filename,
        file.bytes,
        file.mimeType,
        file.purpose,
        file.source,
        file.blobKey,
        file.containerId,
        file.createdAt ?? new Date(now).toISOString(),
      ],
    )
    const created = await this.get(file, id)
    if (created === null) throw new Error(`file ${id} vanished after insert`)
    return created
  }

  async get(scope: Scope, id: string): Promise<FileRecord | null> {
    if (!looksLikeSortableId('file_', id) || !validScope(scope)) return null
    const rows = await this.db.rows<FileRow>(
      'getFile',
      `${SELECT} WHERE f.id = ? AND o.name = ? AND w.name = ?`,
      [id, scope.org, scope.workspace],
    )
    return rows[0] ? toRecord(rows[0]) : null
  }

  async list(scope: Scope, page: { limit: number; after?: string }): Promise<FilePage> {
    if (!validScope(scope)) return { files: [], hasMore: false }
    // Ids sort in creation order, so the cursor is the id itself and ties cannot skip a file.
    const rows = await this.db.rows<FileRow>(
      'listFiles',
      `${SELECT} WHERE o.name = ? AND w.name = ? AND f.id < ? ORDER BY f.id DESC LIMIT ?`,
      [scope.org, scope.workspace, page.after ?? AFTER_ALL, page.limit + 1],
    )
    return { files: rows.slice(0, page.limit).map(toRecord), hasMore: rows.length > page.limit }
  }

  async delete(scope: Scope, id: string): Promise<FileRecord | null> {
    const file = await this.get(scope, id)
    if (file === null) return null
    // Two deletes at once: only the one that removed the row reports it.
    const removed = await this.db.run('deleteFile', 'DELETE FROM files WHERE id = ?', [id])
    return removed === 1 ? file : null
  }
}
