import assert from 'node:assert/strict'
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { History } from './history.js'
import { LineIndexCache, readLines, STRIDE, scanLines } from './line-index.js'
import {
  countLines,
  inspectText,
  keepFinalNewline,
  linesOf,
  modelTextToBytes,
  offsetOfLine,
  trimPartialChar,
} from './text-file.js'

describe('text-file', () => {
  it('describes line endings and the final newline', () => {
    const lf = inspectText(Buffer.from('a\nb\n'), 'f')
    assert.deepEqual(lf, { bom: false, crlf: false, eol: '\n', finalNewline: true })
    const crlf = inspectText(Buffer.from('a\r\nb'), 'f')
    assert.deepEqual(crlf, { bom: false, crlf: true, eol: '\r\n', finalNewline: false })
    const cr = inspectText(Buffer.from('a\rb\n'), 'f')
    assert.deepEqual(cr, { bom: false, crlf: false, eol: '\n', finalNewline: true })
    const mixed = inspectText(Buffer.from('a\r\nb\r\nc\n'), 'f')
    assert.equal(mixed.crlf, false)
    assert.equal(mixed.eol, '\r\n')
    const empty = Buffer.from('')
    assert.equal(linesOf(empty, inspectText(empty, 'f')), 0)
    const bom = Buffer.from('\ufeff')
    assert.equal(linesOf(bom, inspectText(bom, 'f')), 0)
    const two = Buffer.from('\ufeffa\nb')
    assert.equal(linesOf(two, inspectText(two, 'f')), 2)
  })

  it('refuses NUL in the first 8 KiB and invalid UTF-8', () => {
    assert.throws(() => inspectText(Buffer.from('a\0b'), '/w/f'), /is a binary file/)
    assert.throws(() => inspectText(Buffer.from([0xc3, 0x28]), '/w/f'), /is not valid UTF-8 text/)
    // A NUL beyond the probe is text as far as binary detection goes.
    const late = Buffer.concat([Buffer.alloc(9000, 0x61), Buffer.from([0])])
    assert.equal(inspectText(late, 'f').crlf, false)
  })

  it('converts model text to CRLF only for CRLF files', () => {
    const crlf = inspectText(Buffer.from('a\r\n'), 'f')
    assert.equal(modelTextToBytes('x\ny\r\nz', crlf).toString(), 'x\r\ny\r\nz')
    const lf = inspectText(Buffer.from('a\n'), 'f')
    assert.equal(modelTextToBytes('x\r\ny', lf).toString(), 'x\r\ny')
  })

  it('keeps the final newline state', () => {
    const closed = inspectText(Buffer.from('a\n'), 'f')
    assert.equal(keepFinalNewline(Buffer.from('b'), closed).toString(), 'b\n')
    const open = inspectText(Buffer.from('a'), 'f')
    assert.equal(keepFinalNewline(Buffer.from('b\n'), open).toString(), 'b')
    const dos = inspectText(Buffer.from('a\r\nb'), 'f')
    assert.equal(keepFinalNewline(Buffer.from('a\r\nb\r\n'), dos).toString(), 'a\r\nb')
  })

  it('counts lines and finds line offsets', () => {
    assert.equal(countLines(Buffer.from('')), 0)
    assert.equal(countLines(Buffer.from('a')), 1)
    assert.equal(countLines(Buffer.from('a\n')), 1)
    assert.equal(countLines(Buffer.from('a\n\nb')), 3)
    assert.equal(offsetOfLine(Buffer.from('ab\ncd\n'), 2), 3)
    assert.equal(offsetOfLine(Buffer.from('ab\ncd\n'), 9), 6)
  })

  it('cuts a partial UTF-8 character off the end', () => {
    const euro = Buffer.from('a€') // 61 e2 82 ac
    assert.equal(trimPartialChar(euro.subarray(0, 3)).toString(), 'a')
    assert.equal(trimPartialChar(euro.subarray(0, 2)).toString(), 'a')
    assert.equal(trimPartialChar(euro).toString(), 'a€')
  })
})

describe('line-index', () => {
  it('scans only the size the file had when opened, however much is appended meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syntic-index-'))
    try {
      const file = join(dir, 'growing.txt')
      writeFileSync(file, 'a\nb\nc\n')
      const handle = await open(file)
      try {
        const size = (await handle.stat()).size
        // Grows the file on every read: an unbounded scan would never end (the test would hang).
        const appending = {
          read: async (buffer: Buffer, offset: number, length: number, position: number) => {
            appendFileSync(file, 'more\n'.repeat(1000))
            return handle.read(buffer, offset, length, position)
          },
        } as unknown as typeof handle
        const index = await scanLines(appending, Buffer.alloc(2), size)
        assert.equal(index.lines, 3)
        assert.equal(index.size, size)
      } finally {
        await handle.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('indexes every STRIDE-th line and reads ranges across chunk and stride boundaries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syntic-index-'))
    try {
      const file = join(dir, 'f.txt')
      const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1} ${'-'.repeat(i % 50)}`)
      writeFileSync(file, `${lines.join('\n')}`)
      const handle = await open(file)
      try {
        // A tiny buffer puts chunk edges everywhere, including inside lines.
        const buffer = Buffer.alloc(97)
        const index = await scanLines(handle, buffer, (await handle.stat()).size)
        assert.equal(index.lines, 5000)
        assert.equal(index.offsets.length, Math.floor(4999 / STRIDE) + 1)
        for (const [k, offset] of index.offsets.entries()) {
          assert.equal(offset, offsetOfLine(Buffer.from(lines.join('\n')), k * STRIDE + 1))
        }
        for (const [start, end] of [
          [1, 3],
          [1023, 1026],
          [2048, 2049],
          [4998, 5000],
        ] as const) {
          const got = await readLines(handle, index, start, end, 1 << 20, buffer)
          assert.deepEqual(
            got.map((l) => l.bytes.toString()),
            lines.slice(start - 1, end),
          )
          assert.equal(got.at(-1)?.terminated, end !== 5000)
        }
        const cut = await readLines(handle, index, 10, 20, 30, buffer)
        assert.equal(cut.at(-1)?.partial, true)
      } finally {
        await handle.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('keeps a few indexes and drops one when the file changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syntic-index-'))
    try {
      const cache = new LineIndexCache(2)
      const stats = ['a', 'b', 'c'].map((name) => {
        writeFileSync(join(dir, name), `${name}\n`)
        return statSync(join(dir, name))
      })
      const index = { size: 2, lines: 1, offsets: [0], binary: false }
      for (const stat of stats) cache.set(stat, index)
      assert.equal(cache.get(stats[0]!), undefined)
      assert.equal(cache.get(stats[2]!), index)
      writeFileSync(join(dir, 'c'), 'changed\n')
      assert.equal(cache.get(statSync(join(dir, 'c'))), undefined)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('history', () => {
  it('pushes, bounds, reads back and removes entries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syntic-history-'))
    try {
      const history = new History(join(dir, 'h'), 2)
      await history.push('a.txt', { kind: 'absent' }, 'h1')
      const content = Buffer.from('v1')
      await history.push('a.txt', { kind: 'snapshot', mode: 0o600, uid: 1, gid: 2, content }, 'h2')
      await history.push('a.txt', { kind: 'snapshot', mode: 0o644, uid: 1, gid: 2, content }, 'h3')
      // The editor prunes only once the edit itself was written.
      await history.prune('a.txt')
      assert.equal(await history.count('a.txt'), 2)
      const latest = await history.latest('a.txt')
      assert.equal(latest?.seq, 3)
      assert.equal(latest?.after, 'h3')
      assert.deepEqual(latest?.prior, { kind: 'snapshot', mode: 0o644, uid: 1, gid: 2, content })
      await history.remove('a.txt', 3)
      assert.equal((await history.latest('a.txt'))?.after, 'h2')
      assert.equal(await history.latest('other.txt'), null)
      assert.equal(statSync(join(dir, 'h')).mode & 0o777, 0o700)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
