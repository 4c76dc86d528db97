import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { frameCommand, MarkerScanner, markerLine, shellQuote } from './framing.js'
import { OutputCapture } from './output.js'

function capture(maxChars: number, chunks: (string | Buffer)[]): string {
  const out = new OutputCapture(maxChars)
  for (const c of chunks) out.push(typeof c === 'string' ? Buffer.from(c) : c)
  return out.text()
}

describe('output capture', () => {
  it('returns short output unchanged', () => {
    assert.equal(capture(100, ['hello ', 'world\n']), 'hello world\n')
    assert.equal(capture(100, []), '')
  })

  it('keeps head and tail around a marker with the exact dropped count', () => {
    const text = `${'a'.repeat(50)}${'m'.repeat(900)}${'z'.repeat(50)}`
    const out = capture(100, [text])
    assert.equal(out, `${'a'.repeat(50)}\n[... 900 characters dropped ...]\n${'z'.repeat(50)}`)
  })

  it('counts dropped characters exactly when the middle never reached memory', () => {
    const chunks: Buffer[] = []
    for (let i = 0; i < 1000; i++) chunks.push(Buffer.from(`${'x'.repeat(999)}\n`))
    const out = capture(200, ['START\n', ...chunks, 'END\n'])
    assert.ok(out.startsWith('START\n'))
    assert.ok(out.endsWith('END\n'))
    const dropped = Number(/\[\.\.\. (\d+) characters dropped \.\.\.\]/.exec(out)?.[1])
    const total = 6 + 1000 * 1000 + 4
    const kept = out.length - `\n[... ${dropped} characters dropped ...]\n`.length
    // The head gains a newline before the marker when it does not end with one.
    assert.ok(Math.abs(total - dropped - kept) <= 1, `${total} ${dropped} ${kept}`)
  })

  it('never splits a multi-byte character, even across reads', () => {
    const bytes = Buffer.from('é€😀'.repeat(500))
    const chunks: Buffer[] = []
    for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7))
    const out = capture(100, chunks)
    assert.ok(!out.includes('\uFFFD'), out)
    const [head, tail] = out.split(/\n\[\.\.\. \d+ characters dropped \.\.\.\]\n/)
    assert.ok(head && 'é€😀'.repeat(20).startsWith(head))
    assert.ok(tail && 'é€😀'.repeat(20).endsWith(tail))
  })
})

describe('framing', () => {
  it('quotes single quotes for bash', () => {
    assert.equal(shellQuote("it's"), `'it'\\''s'`)
  })

  it('wraps the command in eval with stdin from /dev/null and a marker line', () => {
    const frame = frameCommand("echo 'hi'", 'abc')
    assert.equal(frame.script, `eval 'echo '\\''hi'\\''' < /dev/null\n${markerLine('abc')}`)
    assert.ok(!frame.script.includes('__syntic_abc__'), 'the marker text itself is never sent')
  })

  it('finds a marker split across reads and passes everything before it through', () => {
    const out: Buffer[] = []
    const scanner = new MarkerScanner('n0nce', (b) => out.push(b))
    const stream = 'line one\npartial__syntic_n0nce__:7:/some dir:__n0nce__\nleftover'
    let result = null
    for (const ch of stream) result = scanner.feed(Buffer.from(ch)) ?? result
    assert.deepEqual(result, { exitCode: 7, cwd: '/some dir' })
    assert.equal(Buffer.concat(out).toString(), 'line one\npartial')
  })

  it('ignores a marker with another nonce', () => {
    const out: Buffer[] = []
    const scanner = new MarkerScanner('good', (b) => out.push(b))
    assert.equal(scanner.feed(Buffer.from('__syntic_bad__:0:/:__bad__\n')), null)
    scanner.flush()
    assert.equal(Buffer.concat(out).toString(), '__syntic_bad__:0:/:__bad__\n')
  })
})
