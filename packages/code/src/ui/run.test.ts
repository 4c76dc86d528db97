import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const SYNTIC = join(dirname(fileURLToPath(import.meta.url)), '../../../cli/bin/syntic.js')

describe('runInteractive without a terminal', () => {
  it('refuses with exit code 2 and points to -p instead of drawing into a pipe', async () => {
    const child = spawn(
      process.execPath,
      [SYNTIC, 'code', '--upstream', 'http://127.0.0.1:9/v1', '--model', 'm', '--no-mods'],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent' },
      },
    )
    let out = ''
    let err = ''
    child.stdout.on('data', (data: Buffer) => {
      out += data.toString()
    })
    child.stderr.on('data', (data: Buffer) => {
      err += data.toString()
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    assert.equal(code, 2)
    assert.equal(out, '')
    assert.match(err, /the interactive screen needs a terminal; use -p "PROMPT" in scripts/)
  })
})
