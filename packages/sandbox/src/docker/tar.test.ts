import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { parseEngineHost } from './engine.js'
import { StreamDemuxer } from './mux.js'
import { tarArchive } from './tar.js'

describe('tar writer', () => {
  it('writes archives GNU tar extracts: folders, files, modes, long paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'syntic-tar-test-'))
    try {
      const long = `${'d'.repeat(120)}/${'f'.repeat(150)}.txt`
      const data = Buffer.alloc(1000, 0x62)
      const archive = tarArchive([
        { path: 'a', type: 'directory', mode: 0o755, uid: 1000, gid: 1000 },
        { path: 'a/b.txt', type: 'file', mode: 0o640, uid: 1000, gid: 1000, data },
        { path: 'empty', type: 'file', mode: 0o644, uid: 0, gid: 0, data: new Uint8Array() },
        { path: long, type: 'file', mode: 0o644, uid: 0, gid: 0, data: Buffer.from('long') },
      ])
      assert.equal(archive.length % 512, 0)
      const listing = execFileSync('tar', ['-tvf', '-', '--numeric-owner'], { input: archive })
      assert.match(listing.toString(), /1000\/1000 +1000 .* a\/b\.txt/)
      execFileSync('tar', ['-xf', '-', '-C', dir], { input: archive })
      assert.ok(readFileSync(join(dir, 'a/b.txt')).equals(data))
      assert.equal(statSync(join(dir, 'a/b.txt')).mode & 0o777, 0o640)
      assert.equal(readFileSync(join(dir, 'empty')).length, 0)
      assert.equal(readFileSync(join(dir, long), 'utf8'), 'long')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('multiplexed stream framing', () => {
  const frame = (stream: number, text: string) => {
    const body = Buffer.from(text)
    const head = Buffer.alloc(8)
    head[0] = stream
    head.writeUInt32BE(body.length, 4)
    return Buffer.concat([head, body])
  }

  it('splits stdout and stderr across arbitrary chunk boundaries', () => {
    const out: string[] = []
    const err: string[] = []
    const demuxer = new StreamDemuxer(
      (c) => out.push(c.toString()),
      (c) => err.push(c.toString()),
    )
    const bytes = Buffer.concat([frame(1, 'hello'), frame(2, 'oops'), frame(1, ''), frame(1, '!')])
    for (let i = 0; i < bytes.length; i += 3) demuxer.push(bytes.subarray(i, i + 3))
    assert.equal(out.join(''), 'hello!')
    assert.equal(err.join(''), 'oops')
  })

  it('refuses a header no daemon writes', () => {
    const demuxer = new StreamDemuxer(
      () => undefined,
      () => undefined,
    )
    assert.throws(() => demuxer.push(Buffer.from('HTTP/1.1 200 OK\r\n')), /malformed/)
    const other = new StreamDemuxer(
      () => undefined,
      () => undefined,
    )
    assert.throws(() => other.push(Buffer.from([7, 0, 0, 0, 0, 0, 0, 1, 0x41])), /malformed/)
  })
})

describe('Docker host addresses', () => {
  it('accepts unix sockets and http hosts', () => {
    assert.deepEqual(parseEngineHost('unix:///run/podman/podman.sock'), {
      socketPath: '/run/podman/podman.sock',
      local: true,
    })
    assert.deepEqual(parseEngineHost('http://10.0.0.5:2375'), {
      hostname: '10.0.0.5',
      port: 2375,
      local: false,
    })
    assert.deepEqual(parseEngineHost('tcp://[::1]:2376').hostname, '::1')
  })

  it('refuses anything else', () => {
    for (const host of [
      '',
      'unix://relative.sock',
      'unix:///a\0b',
      'https://docker.example:2376',
      'http://user:pw@host:2375',
      'http://host:2375/v1.41/containers',
      'http://host:2375?x=1',
      'ssh://host',
      'x'.repeat(2000),
      42 as unknown as string,
    ]) {
      assert.throws(() => parseEngineHost(host), TypeError, String(host).slice(0, 40))
    }
  })
})
