import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'syntic.js')

interface Served {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<number | null>
}

function serve(env: Record<string, string>): Served {
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString()
  })
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

async function listening(served: Served): Promise<string> {
  for (;;) {
    const match = /syntic listening on (http:\/\/\S+)\n/.exec(served.stderr())
    if (match) return match[1]!
    const code = await Promise.race([
      served.exited,
      new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 20)),
    ])
    if (code !== 'waiting') throw new Error(`serve exited ${code}: ${served.stderr()}`)
  }
}

describe('syntic serve', () => {
  let home: string
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'syntic-serve-'))
  })
  after(() => rmSync(home, { recursive: true, force: true }))

  it('listens, logs requests as JSON lines on stdout and stops on SIGTERM', async () => {
    const served = serve({ SYNTIC_HOME: home, HOST: '127.0.0.1', PORT: '0' })
    const url = await listening(served)
    assert.match(served.stderr(), /^syntic listening on http:\/\/127\.0\.0\.1:\d+\n$/)
    const health = await fetch(`${url}/healthz`)
    assert.deepEqual(await health.json(), { status: 'ok' })
    const id = health.headers.get('x-request-id')
    const models = await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer nope' } })
    assert.equal(models.status, 401)
    await models.arrayBuffer()
    served.child.kill('SIGTERM')
    assert.equal(await served.exited, 0)
    const lines = served
      .stdout()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: string; path: string; status: number })
    assert.deepEqual(
      lines.map((l) => [l.path, l.status]),
      [
        ['/healthz', 200],
        ['/v1/models', 401],
      ],
    )
    assert.equal(lines[0]!.id, id)
  })

  it('stops on SIGINT and keeps stdout quiet with the request log off', async () => {
    const served = serve({ SYNTIC_HOME: home, PORT: '0', SYNTIC_REQUEST_LOG: 'off' })
    const url = await listening(served)
    await (await fetch(`${url}/healthz`)).arrayBuffer()
    served.child.kill('SIGINT')
    assert.equal(await served.exited, 0)
    assert.equal(served.stdout(), '')
  })

  it('refuses a bad setting with exit code 2, naming it', async () => {
    const served = serve({ SYNTIC_HOME: home, PORT: 'eighty' })
    assert.equal(await served.exited, 2)
    assert.match(served.stderr(), /^syntic: configuration: PORT must be/)
  })

  it('reports a port in use with exit code 1', async () => {
    const first = serve({ SYNTIC_HOME: home, PORT: '0' })
    const url = await listening(first)
    const second = serve({ SYNTIC_HOME: home, PORT: new URL(url).port })
    assert.equal(await second.exited, 1)
    assert.match(second.stderr(), /EADDRINUSE/)
    first.child.kill('SIGTERM')
    assert.equal(await first.exited, 0)
  })
})
