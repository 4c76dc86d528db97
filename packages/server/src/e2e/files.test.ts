import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { FilesServer } from './files-server.js'
import { envelopeOf } from './harness.js'

const LIMIT = 64 * 1024

interface FileObject {
  id: string
  object: string
  filename: string
  bytes: number
  created_at: number
  purpose: string
  source: string
}

/** A hand-made multipart body, for what FormData cannot send (odd names, paths, duplicates). */
function multipart(parts: { name: string; filename?: string; body: string | Buffer }[]): {
  body: Buffer
  type: string
} {
  const boundary = '----syntictest7f3a'
  const chunks: Buffer[] = []
  for (const part of parts) {
    const disposition =
      part.filename === undefined
        ? `form-data; name="${part.name}"`
        : `form-data; name="${part.name}"; filename="${part.filename}"`
    const type = part.filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n'
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`))
    chunks.push(Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body))
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` }
}

describe('Files API', () => {
  let s: FilesServer
  before(async () => {
    s = await FilesServer.start({ filesMaxBytes: LIMIT })
  })
  after(() => s.close())

  async function postRaw(parts: Parameters<typeof multipart>[0]): Promise<Response> {
    const { body, type } = multipart(parts)
    return s.fetch('/v1/files', { method: 'POST', body, headers: { 'content-type': type } })
  }

  async function expectError(response: Response, status: number, code: string, param?: string) {
    assert.equal(response.status, status)
    const envelope = await envelopeOf(response)
    assert.equal(envelope.error.code, code)
    if (param !== undefined) assert.equal(envelope.error.param, param)
    return envelope
  }

  test('upload, read metadata, download, list, delete, then 404', async () => {
    const csv = 'month,aov\n2030-07,41.2\n2030-08,44.6\n'
    const response = await s.upload('orders.csv', csv)
    assert.equal(response.status, 200)
    const file = (await response.json()) as FileObject
    assert.match(file.id, /^file_[0-9A-Z]{26}$/)
    assert.deepEqual(file, {
      id: file.id,
      object: 'file',
      filename: 'orders.csv',
      bytes: Buffer.byteLength(csv),
      created_at: file.created_at,
      purpose: 'code_input',
      source: 'upload',
    })
    assert.ok(Math.abs(file.created_at - Date.now() / 1000) < 600)

    const meta = await s.fetch(`/v1/files/${file.id}`)
    assert.equal(meta.status, 200)
    assert.deepEqual(await meta.json(), file)

    const content = await s.fetch(`/v1/files/${file.id}/content`)
    assert.equal(content.status, 200)
    assert.equal(await content.text(), csv)
    assert.equal(content.headers.get('content-length'), String(file.bytes))
    assert.equal(content.headers.get('x-content-type-options'), 'nosniff')
    assert.equal(
      content.headers.get('content-disposition'),
      `attachment; filename="orders.csv"; filename*=UTF-8''orders.csv`,
    )

    const list = (await (await s.fetch('/v1/files')).json()) as { data: FileObject[] }
    assert.ok(list.data.some((f) => f.id === file.id))

    const deleted = await s.fetch(`/v1/files/${file.id}`, { method: 'DELETE' })
    assert.equal(deleted.status, 200)
    assert.deepEqual(await deleted.json(), { id: file.id, object: 'file', deleted: true })
    await expectError(await s.fetch(`/v1/files/${file.id}`), 404, 'file_not_found')
    await expectError(await s.fetch(`/v1/files/${file.id}/content`), 404, 'file_not_found')
    await expectError(
      await s.fetch(`/v1/files/${file.id}`, { method: 'DELETE' }),
      404,
      'file_not_found',
    )
  })

  test('content is byte-exact for binary data, streamed from the blob folder', async () => {
    const bytes = Buffer.alloc(LIMIT)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) % 256
    const response = await s.upload('noise.bin', bytes)
    assert.equal(response.status, 200)
    const file = (await response.json()) as FileObject
    assert.equal(file.bytes, LIMIT)
    const back = Buffer.from(await (await s.fetch(`/v1/files/${file.id}/content`)).arrayBuffer())
    assert.ok(back.equals(bytes))
  })

  test('a file one byte over the limit is refused with 413, and nothing is kept', async () => {
    const before = (await (await s.fetch('/v1/files?limit=100')).json()) as { data: unknown[] }
    const response = await s.upload('big.bin', Buffer.alloc(LIMIT + 1, 1))
    const envelope = await expectError(response, 413, 'file_too_large', 'file')
    assert.equal(envelope.error.type, 'request_too_large')
    assert.match(envelope.error.message, new RegExp(String(LIMIT)))
    const after = (await (await s.fetch('/v1/files?limit=100')).json()) as { data: unknown[] }
    assert.equal(after.data.length, before.data.length)
    assert.deepEqual(readdirSync(join(s.home, 'blobs', 'tmp')), [])
  })

  test('an upload several times the limit is cut off with 413', async () => {
    const response = await s.upload('huge.bin', Buffer.alloc(LIMIT * 4, 2))
    await expectError(response, 413, 'file_too_large')
  })

  test('hostile filenames are refused with 400 invalid_filename', async () => {
    const names = [
      '../../etc/passwd',
      'a/b.csv',
      'a\\b.csv',
      '..',
      'x'.repeat(10_000),
      'bell\u0007.csv',
      'esc\u001b[31m.csv',
      'rtl\u202eod.exe',
      ' padded.csv',
    ]
    for (const name of names) {
      const response = await s.upload(name, 'data')
      const envelope = await expectError(response, 400, 'invalid_filename', 'file')
      assert.ok(!envelope.error.message.includes(name.slice(0, 20)) || name.length < 20)
    }
    const raw = await postRaw([
      { name: 'purpose', body: 'code_input' },
      { name: 'file', filename: 'tab\there.csv', body: 'x' },
    ])
    await expectError(raw, 400, 'invalid_filename')
  })

  test('unicode filenames are kept and offered safely for download', async () => {
    const response = await s.upload("données q3's 📈.csv", 'a,b\n')
    assert.equal(response.status, 200)
    const file = (await response.json()) as FileObject
    assert.equal(file.filename, "données q3's 📈.csv")
    const content = await s.fetch(`/v1/files/${file.id}/content`)
    const disposition = content.headers.get('content-disposition') ?? ''
    assert.ok(disposition.startsWith(`attachment; filename="donn_es q3's __.csv";`), disposition)
    assert.ok(disposition.endsWith(`filename*=UTF-8''donn%C3%A9es%20q3%27s%20%F0%9F%93%88.csv`))
  })

  test('malformed forms get clear 400s', async () => {
    await expectError(await s.upload('empty.csv', ''), 400, 'empty_file', 'file')
    await expectError(
      await s.upload('a.csv', 'x', undefined, 'fine-tune'),
      400,
      'invalid_request',
      'purpose',
    )
    await expectError(
      await s.upload('a.csv', 'x', undefined, ''),
      400,
      'invalid_request',
      'purpose',
    )
    await expectError(
      await postRaw([{ name: 'file', filename: 'a.csv', body: 'x' }]),
      400,
      'invalid_request',
      'purpose',
    )
    await expectError(
      await postRaw([{ name: 'purpose', body: 'code_input' }]),
      400,
      'invalid_request',
      'file',
    )
    await expectError(
      await postRaw([
        { name: 'purpose', body: 'code_input' },
        { name: 'purpose', body: 'code_input' },
        { name: 'file', filename: 'a.csv', body: 'x' },
      ]),
      400,
      'invalid_request',
      'purpose',
    )
    await expectError(
      await postRaw([
        { name: 'purpose', body: 'code_input' },
        { name: 'file', filename: 'a.csv', body: 'x' },
        { name: 'file', filename: 'b.csv', body: 'y' },
      ]),
      400,
      'invalid_request',
      'file',
    )
    await expectError(
      await postRaw([
        { name: 'purpose', body: 'code_input' },
        { name: 'file', body: 'not a file part' },
      ]),
      400,
      'invalid_request',
      'file',
    )
    await expectError(
      await postRaw([
        { name: 'purpose', body: 'code_input' },
        { name: 'file', filename: 'a.csv', body: 'x' },
        { name: 'extra', body: 'y' },
      ]),
      400,
      'unknown_parameter',
    )
    await expectError(
      await postRaw([{ name: 'purpose', body: 'x'.repeat(10_000) }]),
      400,
      'invalid_request',
      'purpose',
    )
    const many = Array.from({ length: 50 }, (_, i) => ({ name: `f${i}`, body: 'x' }))
    await expectError(await postRaw(many), 400, 'unknown_parameter')
    const list = (await (await s.fetch('/v1/files?limit=100')).json()) as { data: FileObject[] }
    assert.ok(!list.data.some((f) => ['a.csv', 'b.csv', 'empty.csv'].includes(f.filename)))
  })

  test('a body that is not multipart is 415; a broken multipart body is 400', async () => {
    const json = await s.fetch('/v1/files', {
      method: 'POST',
      body: JSON.stringify({ file: 'x', purpose: 'code_input' }),
      headers: { 'content-type': 'application/json' },
    })
    await expectError(json, 415, 'unsupported_media_type')
    const text = await s.fetch('/v1/files', {
      method: 'POST',
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    })
    await expectError(text, 415, 'unsupported_media_type')
    const truncated = await s.fetch('/v1/files', {
      method: 'POST',
      body: '------b\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nabc',
      headers: { 'content-type': 'multipart/form-data; boundary=----b' },
    })
    assert.equal(truncated.status, 400)
    const noBoundary = await s.fetch('/v1/files', {
      method: 'POST',
      body: 'abc',
      headers: { 'content-type': 'multipart/form-data; charset=utf-8' },
    })
    assert.equal(noBoundary.status, 400)
  })

  test('every endpoint needs a valid key, checked before the body', async () => {
    for (const [path, method] of [
      ['/v1/files', 'GET'],
      ['/v1/files', 'POST'],
      ['/v1/files/file_01JBXK2AAAAAAAAAAAAAAAAAAA', 'GET'],
      ['/v1/files/file_01JBXK2AAAAAAAAAAAAAAAAAAA/content', 'GET'],
      ['/v1/files/file_01JBXK2AAAAAAAAAAAAAAAAAAA', 'DELETE'],
    ] as const) {
      await expectError(await s.fetch(path, { method, key: null }), 401, 'missing_api_key')
      await expectError(
        await s.fetch(path, { method, key: 'sk_live_nope' }),
        401,
        'invalid_api_key',
      )
    }
  })

  test('another workspace or organisation sees 404s, indistinguishable from missing ones', async () => {
    const file = (await (await s.upload('private.csv', 'secret')).json()) as FileObject
    for (const key of [s.keys.staging, s.keys.globex]) {
      const missing = await s.fetch('/v1/files/file_00000000000000000000000000', { key })
      const theirs = await s.fetch(`/v1/files/${file.id}`, { key })
      const a = await expectError(missing, 404, 'file_not_found')
      const b = await expectError(theirs, 404, 'file_not_found')
      assert.equal(a.error.message, b.error.message)
      await expectError(
        await s.fetch(`/v1/files/${file.id}/content`, { key }),
        404,
        'file_not_found',
      )
      await expectError(
        await s.fetch(`/v1/files/${file.id}`, { method: 'DELETE', key }),
        404,
        'file_not_found',
      )
      const list = (await (await s.fetch('/v1/files', { key })).json()) as { data: FileObject[] }
      assert.ok(!list.data.some((f) => f.id === file.id))
    }
    assert.equal((await s.fetch(`/v1/files/${file.id}/content`)).status, 200)
  })

  test('listing: newest first, cursor pagination, checked parameters', async () => {
    const key = s.keys.globex
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      ids.push(((await (await s.upload(`p${i}.txt`, `page ${i}`, key)).json()) as FileObject).id)
    }
    const newest = [...ids].reverse()
    const first = (await (await s.fetch('/v1/files?limit=2', { key })).json()) as {
      object: string
      data: FileObject[]
      has_more: boolean
      first_id: string
      last_id: string
    }
    assert.equal(first.object, 'list')
    assert.deepEqual(
      first.data.map((f) => f.id),
      newest.slice(0, 2),
    )
    assert.equal(first.has_more, true)
    assert.equal(first.first_id, newest[0])
    assert.equal(first.last_id, newest[1])
    const rest = (await (
      await s.fetch(`/v1/files?limit=10&after=${first.last_id}`, { key })
    ).json()) as {
      data: FileObject[]
      has_more: boolean
    }
    assert.deepEqual(
      rest.data.map((f) => f.id),
      newest.slice(2),
    )
    assert.equal(rest.has_more, false)
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=-1',
      'limit=abc',
      'limit=1e2',
      'limit=1&limit=2',
    ]) {
      await expectError(
        await s.fetch(`/v1/files?${query}`, { key }),
        400,
        'invalid_request',
        'limit',
      )
    }
    for (const query of ['after=../../x', `after=${'x'.repeat(10_000)}`, "after=file_' OR 1=1"]) {
      await expectError(
        await s.fetch(`/v1/files?${query}`, { key }),
        400,
        'invalid_request',
        'after',
      )
    }
    await expectError(await s.fetch('/v1/files?order=asc', { key }), 400, 'unknown_parameter')
  })

  test('hostile ids and paths are 404 file_not_found; other methods are 405', async () => {
    for (const id of [
      'file_x',
      `file_${'A'.repeat(10_000)}`,
      '%00',
      "file_'%20OR%201=1",
      'file_01JBXK2AAAAAAAAAAAAAAAAAAA/other',
      'file_01JBXK2AAAAAAAAAAAAAAAAAAA/content/x',
    ]) {
      await expectError(await s.fetch(`/v1/files/${id}`), 404, 'file_not_found')
    }
    const put = await s.fetch('/v1/files/file_01JBXK2AAAAAAAAAAAAAAAAAAA', { method: 'PUT' })
    await expectError(put, 405, 'method_not_allowed')
    assert.match(put.headers.get('allow') ?? '', /DELETE/)
    await expectError(await s.fetch('/v1/files', { method: 'PATCH' }), 405, 'method_not_allowed')
  })

  test('a client that gives up mid-upload leaves nothing behind', async () => {
    const { body, type } = multipart([
      { name: 'purpose', body: 'code_input' },
      { name: 'file', filename: 'cut.bin', body: Buffer.alloc(LIMIT / 2, 3) },
    ])
    const url = new URL(`${s.server.url}/v1/files`)
    await new Promise<void>((resolve) => {
      const req = httpRequest(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${s.keys.research}`,
          'content-type': type,
          'content-length': String(body.length),
        },
      })
      req.on('error', () => resolve())
      req.write(body.subarray(0, body.length / 2), () => {
        setTimeout(() => {
          req.destroy()
          resolve()
        }, 50)
      })
    })
    for (let i = 0; i < 50 && readdirSync(join(s.home, 'blobs', 'tmp')).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20))
    }
    assert.deepEqual(readdirSync(join(s.home, 'blobs', 'tmp')), [])
    const list = (await (await s.fetch('/v1/files?limit=100')).json()) as { data: FileObject[] }
    assert.ok(!list.data.some((f) => f.filename === 'cut.bin'))
  })
})
