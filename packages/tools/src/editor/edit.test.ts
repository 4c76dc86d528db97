import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { fails, ok, type Sandbox, sandbox } from './test-support.js'

let box: Sandbox

beforeEach(() => {
  box = sandbox()
})
afterEach(() => box.cleanup())

const read = (name: string) => readFileSync(box.at(name), 'utf8')
const mode = (name: string) => statSync(box.at(name)).mode & 0o7777

describe('create', () => {
  it('writes the file with mode 0644 and confirms with its line count', async () => {
    const old = process.umask(0o077)
    try {
      const out = await ok(box.tool, { command: 'create', path: 'a.txt', content: 'one\ntwo\n' })
      assert.equal(out, 'Created /workspace/a.txt (2 lines)')
    } finally {
      process.umask(old)
    }
    assert.equal(read('a.txt'), 'one\ntwo\n')
    assert.equal(mode('a.txt'), 0o644)
  })

  it('says when a file is empty or has one line', async () => {
    assert.equal(
      await ok(box.tool, { command: 'create', path: 'e.txt', content: '' }),
      'Created /workspace/e.txt (empty)',
    )
    assert.equal(
      await ok(box.tool, { command: 'create', path: 'o.txt', content: 'x' }),
      'Created /workspace/o.txt (1 line)',
    )
  })

  it('makes missing parent folders with mode 0755', async () => {
    await ok(box.tool, { command: 'create', path: 'src/deep/a.ts', content: 'x\n' })
    assert.equal(read('src/deep/a.ts'), 'x\n')
    assert.equal(mode('src'), 0o755)
    assert.equal(mode('src/deep'), 0o755)
  })

  it('fails if the path exists, and leaves the file alone', async () => {
    writeFileSync(box.at('a.txt'), 'keep')
    const out = await fails(box.tool, { command: 'create', path: 'a.txt', content: 'new' })
    assert.equal(out, 'Error: /workspace/a.txt already exists; use replace or insert to change it')
    assert.equal(read('a.txt'), 'keep')
  })

  it('fails on the workspace folder itself', async () => {
    const out = await fails(box.tool, { command: 'create', path: '/workspace', content: '' })
    assert.match(out, /^Error: \/workspace is the workspace folder itself/)
  })

  it('keeps content bytes exactly, tabs and CRLF included', async () => {
    await ok(box.tool, { command: 'create', path: 'raw.txt', content: 'a\tb\r\nc' })
    assert.equal(read('raw.txt'), 'a\tb\r\nc')
  })
})

describe('replace', () => {
  beforeEach(() => {
    writeFileSync(
      box.at('a.py'),
      'def f():\n\treturn 1\n\ndef g():\n\treturn 1\n\ndef h():\n\treturn 2\n',
    )
  })

  it('replaces a unique occurrence and shows the region with context', async () => {
    const out = await ok(box.tool, {
      command: 'replace',
      path: 'a.py',
      old_text: 'def h():\n\treturn 2',
      new_text: 'def h():\n\treturn 3',
    })
    assert.equal(
      read('a.py'),
      'def f():\n\treturn 1\n\ndef g():\n\treturn 1\n\ndef h():\n\treturn 3\n',
    )
    assert.equal(
      out,
      [
        'Replaced text in /workspace/a.py; the new text is lines 7-8. Lines 4-8 now:',
        '     4\tdef g():',
        '     5\t\treturn 1',
        '     6\t',
        '     7\tdef h():',
        '     8\t\treturn 3',
      ].join('\n'),
    )
  })

  it('fails when old_text is not found, saying 0 times', async () => {
    const out = await fails(box.tool, {
      command: 'replace',
      path: 'a.py',
      old_text: 'return 9',
      new_text: 'x',
    })
    assert.match(out, /^Error: old_text not found in \/workspace\/a\.py \(found 0 times\)/)
  })

  it('fails when old_text is found more than once, saying how many times', async () => {
    writeFileSync(box.at('three.py'), 'x = 1\nx = 1\nx = 1\n')
    const out = await fails(box.tool, {
      command: 'replace',
      path: 'three.py',
      old_text: 'x = 1',
      new_text: 'y',
    })
    assert.equal(
      out,
      'Error: old_text found 3 times in /workspace/three.py; add surrounding lines to make it unique',
    )
    assert.equal(read('three.py'), 'x = 1\nx = 1\nx = 1\n')
  })

  it('counts overlapping occurrences', async () => {
    writeFileSync(box.at('aaa.txt'), 'aaa\n')
    const out = await fails(box.tool, {
      command: 'replace',
      path: 'aaa.txt',
      old_text: 'aa',
      new_text: 'b',
    })
    assert.match(out, /^Error: old_text found 2 times in \/workspace\/aaa\.txt;/)
  })

  it('refuses an empty old_text', async () => {
    const out = await fails(box.tool, {
      command: 'replace',
      path: 'a.py',
      old_text: '',
      new_text: 'x',
    })
    assert.match(out, /^Error: old_text is empty;/)
  })

  it('hints when only surrounding whitespace differs', async () => {
    const out = await fails(box.tool, {
      command: 'replace',
      path: 'a.py',
      old_text: '  def h():  ',
      new_text: 'x',
    })
    assert.match(out, /it appears once if leading and trailing whitespace is ignored/)
  })

  it('removes text when new_text is empty', async () => {
    const out = await ok(box.tool, {
      command: 'replace',
      path: 'a.py',
      old_text: '\ndef h():\n\treturn 2\n',
      new_text: '',
    })
    assert.equal(read('a.py'), 'def f():\n\treturn 1\n\ndef g():\n\treturn 1\n')
    assert.match(out, /^Removed the text from \/workspace\/a\.py at line 6\. Lines 3-5 now:\n/)
  })

  it('says when a replace empties the file', async () => {
    writeFileSync(box.at('one.txt'), 'only\n')
    const out = await ok(box.tool, {
      command: 'replace',
      path: 'one.txt',
      old_text: 'only\n',
      new_text: '',
    })
    assert.equal(out, 'Removed the text from /workspace/one.txt at line 1. The file is now empty.')
    assert.equal(read('one.txt'), '')
  })

  it('shows the snippet at the top of the file with the first line', async () => {
    const out = await ok(box.tool, {
      command: 'replace',
      path: 'a.py',
      old_text: 'def f():',
      new_text: 'def f0():',
    })
    assert.equal(
      out,
      [
        'Replaced text in /workspace/a.py; the new text is line 1. Lines 1-4 now:',
        '     1\tdef f0():',
        '     2\t\treturn 1',
        '     3\t',
        '     4\tdef g():',
      ].join('\n'),
    )
  })

  it('keeps tabs and the file mode', async () => {
    chmodSync(box.at('a.py'), 0o755)
    await ok(box.tool, {
      command: 'replace',
      path: 'a.py',
      old_text: 'def f():',
      new_text: 'def f(x):',
    })
    assert.equal(mode('a.py'), 0o755)
    assert.ok(read('a.py').startsWith('def f(x):\n\treturn 1\n'))
  })

  it('keeps the owner when running as root', { skip: process.getuid?.() !== 0 }, async () => {
    chownSync(box.at('a.py'), 1234, 5678)
    await ok(box.tool, {
      command: 'replace',
      path: 'a.py',
      old_text: 'def g():',
      new_text: 'def g(y):',
    })
    const stat = statSync(box.at('a.py'))
    assert.deepEqual([stat.uid, stat.gid], [1234, 5678])
  })

  it('matches LF old_text in a CRLF file and writes CRLF back', async () => {
    writeFileSync(box.at('dos.txt'), 'alpha\r\nbeta\r\ngamma\r\n')
    await ok(box.tool, {
      command: 'replace',
      path: 'dos.txt',
      old_text: 'alpha\nbeta',
      new_text: 'one\ntwo\nthree',
    })
    assert.equal(read('dos.txt'), 'one\r\ntwo\r\nthree\r\ngamma\r\n')
  })

  it('keeps a missing final newline', async () => {
    writeFileSync(box.at('open.txt'), 'a\nb\nlast')
    await ok(box.tool, {
      command: 'replace',
      path: 'open.txt',
      old_text: 'last',
      new_text: 'final\n',
    })
    assert.equal(read('open.txt'), 'a\nb\nfinal')
  })

  it('keeps a present final newline', async () => {
    writeFileSync(box.at('closed.txt'), 'a\nb\n')
    await ok(box.tool, { command: 'replace', path: 'closed.txt', old_text: 'b\n', new_text: 'c' })
    assert.equal(read('closed.txt'), 'a\nc\n')
  })

  it('refuses binary and non-UTF-8 files', async () => {
    writeFileSync(box.at('bin'), Buffer.from('abc\0def'))
    assert.equal(
      await fails(box.tool, { command: 'replace', path: 'bin', old_text: 'abc', new_text: 'x' }),
      'Error: /workspace/bin is a binary file; the editor only handles UTF-8 text',
    )
    writeFileSync(box.at('latin1'), Buffer.from([0x63, 0x61, 0x66, 0xe9]))
    assert.equal(
      await fails(box.tool, { command: 'replace', path: 'latin1', old_text: 'ca', new_text: 'x' }),
      'Error: /workspace/latin1 is not valid UTF-8 text; the editor only handles UTF-8 text',
    )
  })

  it('refuses a FIFO without opening it', async () => {
    execFileSync('mkfifo', [box.at('pipe')])
    assert.equal(
      await fails(box.tool, { command: 'replace', path: 'pipe', old_text: 'a', new_text: 'b' }),
      'Error: /workspace/pipe is a named pipe (FIFO), not a regular file; the editor only handles regular files',
    )
  })

  it('refuses a file over maxEditBytes', async () => {
    const tool = box.restart({ maxEditBytes: 1024 })
    writeFileSync(box.at('big.txt'), 'x'.repeat(2048))
    const out = await fails(tool, {
      command: 'replace',
      path: 'big.txt',
      old_text: 'x',
      new_text: 'y',
    })
    assert.equal(
      out,
      'Error: /workspace/big.txt is 2.0 KiB; the editor only edits files up to 1.0 KiB (view still works)',
    )
  })

  it('says when the file does not exist or is a folder', async () => {
    assert.equal(
      await fails(box.tool, { command: 'replace', path: 'nope.txt', old_text: 'a', new_text: 'b' }),
      'Error: /workspace/nope.txt does not exist; use create to make it',
    )
    assert.equal(
      await fails(box.tool, {
        command: 'replace',
        path: '/workspace',
        old_text: 'a',
        new_text: 'b',
      }),
      'Error: /workspace is a folder; only files can be edited',
    )
  })
})

describe('insert', () => {
  beforeEach(() => {
    writeFileSync(box.at('n.txt'), '1\n2\n3\n4\n5\n')
  })

  it('inserts at the top with after_line 0', async () => {
    const out = await ok(box.tool, { command: 'insert', path: 'n.txt', after_line: 0, text: 'top' })
    assert.equal(read('n.txt'), 'top\n1\n2\n3\n4\n5\n')
    assert.equal(
      out,
      [
        'Inserted 1 line at the top of /workspace/n.txt (now line 1). Lines 1-4 now:',
        '     1\ttop',
        '     2\t1',
        '     3\t2',
        '     4\t3',
      ].join('\n'),
    )
  })

  it('inserts whole lines in the middle, whether or not the text ends with a newline', async () => {
    const out = await ok(box.tool, {
      command: 'insert',
      path: 'n.txt',
      after_line: 2,
      text: 'a\nb\n',
    })
    assert.equal(read('n.txt'), '1\n2\na\nb\n3\n4\n5\n')
    assert.match(
      out,
      /^Inserted 2 lines after line 2 of \/workspace\/n\.txt \(now lines 3-4\)\. Lines 1-7 now:\n/,
    )
    await ok(box.tool, { command: 'insert', path: 'n.txt', after_line: 1, text: 'c' })
    assert.equal(read('n.txt'), '1\nc\n2\na\nb\n3\n4\n5\n')
  })

  it('appends with after_line equal to the line count', async () => {
    await ok(box.tool, { command: 'insert', path: 'n.txt', after_line: 5, text: 'end' })
    assert.equal(read('n.txt'), '1\n2\n3\n4\n5\nend\n')
  })

  it('inserts a blank line for "\\n" and refuses empty text', async () => {
    await ok(box.tool, { command: 'insert', path: 'n.txt', after_line: 1, text: '\n' })
    assert.equal(read('n.txt'), '1\n\n2\n3\n4\n5\n')
    assert.match(
      await fails(box.tool, { command: 'insert', path: 'n.txt', after_line: 1, text: '' }),
      /^Error: text is empty/,
    )
  })

  it('rejects after_line beyond the end or negative, stating the line count', async () => {
    const expected =
      'Error: after_line 6 is out of range; /workspace/n.txt has 5 lines, so use 0 (the top) to 5 (the end)'
    assert.equal(
      await fails(box.tool, { command: 'insert', path: 'n.txt', after_line: 6, text: 'x' }),
      expected,
    )
    assert.equal(
      await fails(box.tool, { command: 'insert', path: 'n.txt', after_line: -1, text: 'x' }),
      expected.replace('after_line 6', 'after_line -1'),
    )
    assert.equal(read('n.txt'), '1\n2\n3\n4\n5\n')
  })

  it('gives inserted lines the CRLF endings of the file', async () => {
    writeFileSync(box.at('dos.txt'), 'a\r\nb\r\n')
    await ok(box.tool, { command: 'insert', path: 'dos.txt', after_line: 1, text: 'x\ny' })
    assert.equal(read('dos.txt'), 'a\r\nx\r\ny\r\nb\r\n')
  })

  it('keeps a missing final newline when appending', async () => {
    writeFileSync(box.at('open.txt'), 'a\nb')
    await ok(box.tool, { command: 'insert', path: 'open.txt', after_line: 2, text: 'c\n' })
    assert.equal(read('open.txt'), 'a\nb\nc')
    await ok(box.tool, { command: 'insert', path: 'open.txt', after_line: 0, text: 'z' })
    assert.equal(read('open.txt'), 'z\na\nb\nc')
  })

  it('keeps the byte order mark at the top', async () => {
    writeFileSync(box.at('bom.txt'), '\ufeffa\n')
    await ok(box.tool, { command: 'insert', path: 'bom.txt', after_line: 0, text: 'z' })
    assert.equal(read('bom.txt'), '\ufeffz\na\n')
  })

  it('fills an empty file', async () => {
    writeFileSync(box.at('empty.txt'), '')
    await ok(box.tool, { command: 'insert', path: 'empty.txt', after_line: 0, text: 'first' })
    assert.equal(read('empty.txt'), 'first\n')
  })

  it('keeps tabs and mode 0755', async () => {
    writeFileSync(box.at('run.sh'), '#!/bin/sh\n\techo hi\n')
    chmodSync(box.at('run.sh'), 0o755)
    await ok(box.tool, { command: 'insert', path: 'run.sh', after_line: 2, text: '\techo bye' })
    assert.equal(read('run.sh'), '#!/bin/sh\n\techo hi\n\techo bye\n')
    assert.equal(mode('run.sh'), 0o755)
  })

  it('applies concurrent edits one after another, losing none', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        box.tool.run({ command: 'insert', path: 'n.txt', after_line: 0, text: `c${i}` }),
      ),
    )
    assert.ok(results.every((r) => !r.is_error))
    const lines = read('n.txt').split('\n')
    assert.equal(lines.length, 16)
    for (let i = 0; i < 10; i++) assert.ok(lines.includes(`c${i}`))
  })

  it('shows a large insertion in part, with the range for the rest', async () => {
    const text = Array.from({ length: 100 }, (_, i) => `new ${i + 1}`).join('\n')
    const out = await ok(box.tool, { command: 'insert', path: 'n.txt', after_line: 2, text })
    const lines = out.split('\n')
    assert.equal(
      lines[0],
      'Inserted 100 lines after line 2 of /workspace/n.txt (now lines 3-102). Lines 1-40 now:',
    )
    assert.equal(lines[1], '     1\t1')
    assert.equal(lines[40], '    40\tnew 38')
    assert.equal(lines[41], '[snippet cut at line 40; view range: [41, 105] for the rest]')
    assert.equal(lines.length, 42)
  })

  it('refuses a non-UTF-8 file', async () => {
    writeFileSync(box.at('latin1'), Buffer.from([0x63, 0xe9, 0x0a]))
    assert.match(
      await fails(box.tool, { command: 'insert', path: 'latin1', after_line: 0, text: 'x' }),
      /is not valid UTF-8 text/,
    )
  })
})
