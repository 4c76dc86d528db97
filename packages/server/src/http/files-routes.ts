import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { BlobTooLargeError } from '../blobs/port.js'
import { ApiError } from '../errors.js'
import { EmptyFileError, type FileService, InvalidFilenameError } from '../files/file-service.js'
import { contentDisposition } from '../files/filename.js'
import { DEFAULT_FILE_PAGE_LIMIT, MAX_FILE_PAGE_LIMIT } from '../files/limits.js'
import { cleanMimeType } from '../files/mime-type.js'
import { toFileObject } from '../files/wire.js'
import { looksLikeSortableId } from '../store/ids.js'
import type { FileRecord, Scope } from '../store/port.js'
import { sendError } from './reply-error.js'

export interface FilesRoutesOptions {
  files: FileService
  /** Checks the API key and sets `request.syntic.principal`; runs before any body is read. */
  authenticate: onRequestHookHandler
}

/** The upload's parts: one `file`, one `purpose`; a few extra are read only to be refused. */
const PART_LIMITS = { files: 3, fields: 4, parts: 8, fieldNameSize: 64, fieldSize: 256 }

function invalid(message: string, param: string | null, code = 'invalid_request'): ApiError {
  return new ApiError(400, 'invalid_request_error', code, message, param)
}

function fileNotFound(): ApiError {
  return new ApiError(
    404,
    'not_found_error',
    'file_not_found',
    'No such file in this workspace. List yours with GET /v1/files.',
  )
}

function scopeOf(request: FastifyRequest): Scope {
  const principal = request.syntic?.principal
  if (!principal) throw new Error('files route reached without a principal')
  return { org: principal.org, workspace: principal.workspace }
}

/** The multipart parser's own refusals (malformed bodies, too many parts) as API errors. */
function multipartError(error: unknown, maxBytes: number): ApiError | null {
  if (error instanceof ApiError) return error
  if (error instanceof BlobTooLargeError) return fileTooLarge(maxBytes)
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fileTooLarge(maxBytes)
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return invalid('The form has too many parts: send one "file" and one "purpose"', null)
  }
  if (code === 'FST_PROTO_VIOLATION') return invalid('A form part has a reserved name', null)
  if (error instanceof Error && /multipart|boundary|part terminated/i.test(error.message)) {
    return invalid(`The multipart body is malformed: ${error.message}`, null)
  }
  return null
}

function fileTooLarge(maxBytes: number): ApiError {
  return new ApiError(
    413,
    'request_too_large',
    'file_too_large',
    `The file is larger than the limit of ${maxBytes} bytes`,
    'file',
  )
}

const NOT_MULTIPART = new ApiError(
  415,
  'invalid_request_error',
  'unsupported_media_type',
  'Content-Type must be multipart/form-data with a "file" part and a "purpose" part',
)

function queryValue(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw invalid(`Give ${name} once`, name)
  return value
}

/** `limit` and `after` of a listing, checked. */
function pageOf(request: FastifyRequest): { limit: number; after?: string } {
  const query = (request.query ?? {}) as Record<string, unknown>
  const unknown = Object.keys(query).find((k) => k !== 'limit' && k !== 'after')
  if (unknown !== undefined) {
    throw invalid(
      `Unknown query parameter ${JSON.stringify(unknown.slice(0, 40))}; use limit and after`,
      unknown.slice(0, 40),
      'unknown_parameter',
    )
  }
  const rawLimit = queryValue(query, 'limit')
  let limit = DEFAULT_FILE_PAGE_LIMIT
  if (rawLimit !== undefined) {
    limit = /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : 0
    if (limit < 1 || limit > MAX_FILE_PAGE_LIMIT) {
      throw invalid(`limit must be a whole number from 1 to ${MAX_FILE_PAGE_LIMIT}`, 'limit')
    }
  }
  const after = queryValue(query, 'after')
  if (after === undefined) return { limit }
  if (!looksLikeSortableId('file_', after)) {
    throw invalid('after must be a file id (file_...) from an earlier page', 'after')
  }
  return { limit, after }
}

/** `<id>` or `<id>/content` after `/v1/files/`; anything else names no file. */
function pathOf(request: FastifyRequest): { id: string; content: boolean } {
  const rest = (request.params as { '*': string })['*']
  const slash = rest.indexOf('/')
  if (slash === -1) return { id: rest, content: false }
  if (rest.slice(slash) === '/content') return { id: rest.slice(0, slash), content: true }
  throw fileNotFound()
}

/**
 * The Files API: `POST /v1/files` (multipart upload, streamed to the blob store),
 * `GET /v1/files`, `GET /v1/files/{id}`, `GET /v1/files/{id}/content`, `DELETE /v1/files/{id}`.
 * Registered in its own scope so the multipart parser exists on these routes only.
 */
export async function filesRoutes(
  app: FastifyInstance,
  options: FilesRoutesOptions,
): Promise<void> {
  const { files, authenticate } = options
  const maxBytes = files.maxBytes

  await app.register(multipart, {
    // One byte past the cap, so the blob store's own cap is the one that speaks.
    limits: { ...PART_LIMITS, fileSize: maxBytes + 1 },
    throwFileSizeLimit: false,
    // The name as sent, so that a path in it is refused rather than silently cut to its last part.
    preservePath: true,
  })

  const multipartOnly: onRequestHookHandler = (request, _reply, done) => {
    const type = request.headers['content-type'] ?? ''
    if (!/^multipart\/form-data\s*;/i.test(type)) throw NOT_MULTIPART
    done()
  }

  app.post('/v1/files', { onRequest: [authenticate, multipartOnly] }, async (request, reply) => {
    try {
      const file = await receiveUpload(request, files)
      reply.type('application/json; charset=utf-8')
      return JSON.stringify(toFileObject(file))
    } catch (error) {
      const api = multipartError(error, maxBytes)
      if (api === null) throw error
      // The rest of the body may be large and is unwanted: close rather than read it all.
      reply.header('connection', 'close')
      sendError(request, reply, api)
      return reply
    }
  })

  app.get('/v1/files', { onRequest: authenticate }, async (request, reply) => {
    const page = await files.list(scopeOf(request), pageOf(request))
    reply.type('application/json; charset=utf-8')
    return JSON.stringify({
      object: 'list',
      data: page.files.map(toFileObject),
      first_id: page.files[0]?.id ?? null,
      last_id: page.files.at(-1)?.id ?? null,
      has_more: page.hasMore,
    })
  })

  app.get('/v1/files/*', { onRequest: authenticate }, async (request, reply) => {
    const { id, content } = pathOf(request)
    const scope = scopeOf(request)
    if (!content) {
      const file = await files.get(scope, id)
      if (file === null) throw fileNotFound()
      reply.type('application/json; charset=utf-8')
      return JSON.stringify(toFileObject(file))
    }
    const opened = await files.open(scope, id)
    if (opened === null) throw fileNotFound()
    sendContent(reply, opened.file)
    return reply.send(opened.content)
  })

  app.delete('/v1/files/*', { onRequest: authenticate }, async (request, reply) => {
    const { id, content } = pathOf(request)
    if (content) throw methodNotAllowedOnContent()
    const file = await files.delete(scopeOf(request), id)
    if (file === null) throw fileNotFound()
    reply.type('application/json; charset=utf-8')
    return JSON.stringify({ id: file.id, object: 'file', deleted: true })
  })

  app.route({
    method: ['POST', 'PUT', 'PATCH'],
    url: '/v1/files/*',
    handler: async (request, reply) => {
      const { content } = pathOf(request)
      reply.header('allow', content ? 'GET, HEAD' : 'GET, HEAD, DELETE')
      sendError(
        request,
        reply,
        new ApiError(
          405,
          'invalid_request_error',
          'method_not_allowed',
          `/v1/files/{id}${content ? '/content' : ''} does not take ${request.method}`,
        ),
      )
      return reply
    },
  })
}

function methodNotAllowedOnContent(): ApiError {
  return new ApiError(
    405,
    'invalid_request_error',
    'method_not_allowed',
    '/v1/files/{id}/content does not take DELETE; delete the file with DELETE /v1/files/{id}',
  )
}

function sendContent(reply: FastifyReply, file: FileRecord): void {
  reply.header('content-type', file.mimeType)
  reply.header('content-length', String(file.bytes))
  reply.header('content-disposition', contentDisposition(file.filename))
  // Uploaded content is the uploader's: never sniffed, rendered or scripted from this origin.
  reply.header('x-content-type-options', 'nosniff')
  reply.header('content-security-policy', "default-src 'none'; sandbox")
}

/** Reads the parts in order, streaming the file to the blob store as it arrives. */
async function receiveUpload(request: FastifyRequest, files: FileService): Promise<FileRecord> {
  let purpose: string | undefined
  let stored: FileRecord | undefined
  let fileParts = 0
  const scope = scopeOf(request)
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.fieldname === 'file') {
          throw invalid('"file" must be a file part, with a filename', 'file')
        }
        if (part.fieldname !== 'purpose') throw unknownPart(part.fieldname)
        if (purpose !== undefined) throw invalid('Give "purpose" once', 'purpose')
        purpose = typeof part.value === 'string' && !part.valueTruncated ? part.value : ''
        if (purpose !== 'code_input') {
          throw invalid(
            `purpose must be "code_input" (got ${JSON.stringify(purpose.slice(0, 40))})`,
            'purpose',
          )
        }
        continue
      }
      if (part.fieldname !== 'file') {
        part.file.resume()
        throw unknownPart(part.fieldname)
      }
      fileParts += 1
      if (fileParts > 1) throw invalid('Send one file per request: "file" came twice', 'file')
      try {
        stored = await files.create({
          scope,
          filename: part.filename,
          mimeType: cleanMimeType(part.mimetype),
          purpose: 'code_input',
          source: 'upload',
          content: part.file,
          rejectEmpty: true,
        })
      } catch (error) {
        if (error instanceof InvalidFilenameError) {
          throw invalid(`${error.message}`, 'file', 'invalid_filename')
        }
        if (error instanceof EmptyFileError) {
          throw invalid('The file is empty; upload a file with content', 'file', 'empty_file')
        }
        throw error
      }
    }
    if (stored === undefined) {
      throw invalid('The form has no "file" part: send the file as "file"', 'file')
    }
    if (purpose === undefined) {
      throw invalid('The form has no "purpose" part: send purpose=code_input', 'purpose')
    }
    return stored
  } catch (error) {
    // A file stored before a later part turned out wrong is not kept.
    if (stored !== undefined) await files.delete(scope, stored.id)
    throw error
  }
}

function unknownPart(name: string): ApiError {
  return invalid(
    `Unknown form part ${JSON.stringify(name.slice(0, 40))}; send "file" and "purpose" only`,
    name.slice(0, 40),
    'unknown_parameter',
  )
}
