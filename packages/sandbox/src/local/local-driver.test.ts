import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { SandboxError } from '../driver.js'
import { CHUNK_BYTES } from '../kernel-replies.js'
import { SandboxPool } from '../pool.js'
import { assertRunCancels } from '../testing/cancel-run.js'
import { openTestDriver } from '../testing/harness.js'
import { streamedInput } from '../testing/streamed-input.js'
import { LocalDriver } from './local-driver.js'

describe('local driver: runs, files, lifecycle', () => {
  let env: Awaited<ReturnType<typeof openTestDriver>>
  let id: string

  before(async () => {
    env = await openTestDriver({ runTimeoutMs: 2000, outputCapBytes: 1024 })
    // Imports of the data libraries can pass the short limit on a loaded machine: only the
    // timeout test's own sandbox runs under it.
    id = (await env.driver.create({ runTimeoutMs: 60_000 })).id
  })
  after(async () => {
    await env?.close()
  })

  it('keeps Python state between runs and prints the last expression', async () => {
    const first = await env.driver.run(id, {
      language: 'python',
      code: 'import json\nx = 20\nprint("set")',
    })
    assert.equal(first.exitCode, 0)
    assert.equal(first.stdout.text, 'set\n')
    const second = await env.driver.run(id, {
      language: 'python',
      code: 'json.dumps({"x": x * 2 + 2})',
    })
    assert.equal(second.stdout.text, `'{"x": 42}'\n`)
    assert.equal(second.kernelRestarted, false)
  })

  it('imports the data libraries of the image', async () => {
    const result = await env.driver.run(id, {
      language: 'python',
      code: 'import pandas, numpy, matplotlib.pyplot, openpyxl, pypdf, sys\nprint(sys.version_info[:2], pandas.DataFrame({"a": [1, 2]}).a.sum())',
    })
    assert.equal(result.stderr.text, '')
    assert.equal(result.stdout.text, '(3, 11) 3\n')
  })

  it('reports exceptions, SystemExit and syntax errors as exit codes with their output', async () => {
    const error = await env.driver.run(id, {
      language: 'python',
      code: 'print("before")\nraise ValueError("bad")',
    })
    assert.equal(error.exitCode, 1)
    assert.equal(error.stdout.text, 'before\n')
    assert.match(error.stderr.text, /ValueError: bad/)
    assert.doesNotMatch(error.stderr.text, /kernel\.py/)
    assert.equal(
      (await env.driver.run(id, { language: 'python', code: 'raise SystemExit(7)' })).exitCode,
      7,
    )
    const syntax = await env.driver.run(id, { language: 'python', code: 'def (' })
    assert.equal(syntax.exitCode, 1)
    assert.match(syntax.stderr.text, /SyntaxError/)
  })

  it('captures subprocess output of Python runs and runs Bash', async () => {
    const python = await env.driver.run(id, {
      language: 'python',
      code: 'import subprocess\nprint("py", flush=True)\nsubprocess.run(["sh", "-c", "echo child; echo oops >&2"])',
    })
    assert.equal(python.stdout.text.split('\n').slice(0, 2).join(','), 'py,child')
    assert.equal(python.stderr.text, 'oops\n')
    const bash = await env.driver.run(id, {
      language: 'bash',
      code: 'cd /mnt/input && pwd; echo e >&2; exit 4',
    })
    assert.deepEqual(
      [bash.exitCode, bash.stdout.text, bash.stderr.text],
      [4, '/mnt/input\n', 'e\n'],
    )
  })

  it('keeps the head and tail of output past the cap', async () => {
    const result = await env.driver.run(id, {
      language: 'python',
      code: 'print("HEAD" + "a" * 5000)\nprint("b" * 5000 + "TAIL")',
    })
    assert.equal(result.stdout.truncated, true)
    assert.equal(result.stdout.bytes, 10_010)
    assert.ok(result.stdout.text.startsWith('HEAD'))
    assert.ok(result.stdout.text.endsWith('TAIL\n'))
    assert.match(result.stdout.text, /bytes omitted/)
    assert.ok(result.stdout.text.length < 1200)
  })

  it('kills a run past the timeout with what it started, restarts the kernel, stays usable', async () => {
    const short = (await env.driver.create()).id
    await env.driver.run(short, { language: 'python', code: 'marker = 1' })
    const result = await env.driver.run(short, {
      language: 'python',
      code: 'import subprocess\nsubprocess.Popen(["sleep", "1000"])\nwhile True: pass',
    })
    assert.equal(result.timedOut, true)
    assert.equal(result.kernelRestarted, true)
    assert.equal(result.exitCode, 137)
    assert.match(result.stderr.text, /2 s limit/)
    const pids = await cgroupPids(env.driver, short)
    const after = await env.driver.run(short, { language: 'bash', code: 'cat /proc/[0-9]*/comm' })
    assert.equal(after.exitCode, 0)
    assert.doesNotMatch(after.stdout.text, /sleep/)
    assert.ok(pids.length <= 3, `processes left: ${pids.length}`)
    const gone = await env.driver.run(short, { language: 'python', code: "'marker' in globals()" })
    assert.equal(gone.stdout.text, 'False\n')
    await env.driver.destroy(short)
  })

  it('cancels a run when the signal aborts: kills what it started, stays usable', async () => {
    await assertRunCancels(env.driver, id)
  })

  it('restarts a kernel that died and says so', async () => {
    const died = await env.driver.run(id, { language: 'python', code: 'import os\nos._exit(3)' })
    assert.equal(died.kernelRestarted, true)
    assert.equal(died.exitCode, 3)
    const next = await env.driver.run(id, { language: 'python', code: '1 + 1' })
    assert.equal(next.stdout.text, '2\n')
  })

  it('copies files into /mnt/input and reads files from /mnt/output', async () => {
    const big = Buffer.alloc(9 * 1024 * 1024 + 7, 0x61)
    await env.driver.putInput(id, 'data/orders.csv', Buffer.from('a,b\n1,2\n3,4\n'))
    await env.driver.putInput(id, 'big.bin', big)
    const result = await env.driver.run(id, {
      language: 'python',
      code: [
        'import pandas as pd, os, shutil',
        'df = pd.read_csv("/mnt/input/data/orders.csv")',
        'os.makedirs("/mnt/output/sub", exist_ok=True)',
        'df.to_csv("/mnt/output/sub/sum.csv", index=False)',
        'shutil.copy("/mnt/input/big.bin", "/mnt/output/big.bin")',
        'os.symlink("/etc/passwd", "/mnt/output/link")',
        'print(int(df.b.sum()), os.path.getsize("/mnt/input/big.bin"))',
      ].join('\n'),
    })
    assert.equal(result.stdout.text, `6 ${big.length}\n`)
    const files = await env.driver.listOutput(id)
    assert.deepEqual(files, [
      { path: 'big.bin', bytes: big.length },
      { path: 'sub/sum.csv', bytes: 12 },
    ])
    assert.equal((await env.driver.readOutput(id, 'sub/sum.csv')).toString(), 'a,b\n1,2\n3,4\n')
    assert.ok((await env.driver.readOutput(id, 'big.bin')).equals(big))
    await assert.rejects(env.driver.readOutput(id, 'big.bin', 1024), { code: 'file_too_large' })
    await assert.rejects(env.driver.readOutput(id, 'link'), { code: 'invalid_path' })
    await assert.rejects(env.driver.readOutput(id, 'missing.txt'), { code: 'file_not_found' })
  })

  it('streams inputs in and outputs out piece by piece, files larger than a piece', async () => {
    const { content, digest, bytes } = streamedInput()
    await env.driver.putInput(id, 'streamed.bin', content)
    const result = await env.driver.run(id, {
      language: 'python',
      code: 'import hashlib, shutil\nshutil.copy("/mnt/input/streamed.bin", "/mnt/output/streamed.bin")\nprint(hashlib.sha256(open("/mnt/input/streamed.bin", "rb").read()).hexdigest())',
    })
    assert.equal(result.stdout.text, `${digest}\n`)
    const sizes: number[] = []
    const hash = createHash('sha256')
    for await (const chunk of env.driver.readOutputChunks(id, 'streamed.bin')) {
      sizes.push(chunk.length)
      hash.update(chunk)
    }
    assert.deepEqual(sizes, [CHUNK_BYTES, CHUNK_BYTES, bytes - 2 * CHUNK_BYTES])
    assert.equal(hash.digest('hex'), digest)
    const capped = async () => {
      for await (const _ of env.driver.readOutputChunks(id, 'streamed.bin', CHUNK_BYTES)) {
        // Drained for its error.
      }
    }
    await assert.rejects(capped, { code: 'file_too_large' })
    const notBytes = (async function* () {
      yield 'text' as unknown as Uint8Array
    })()
    await assert.rejects(env.driver.putInput(id, 'bad.bin', notBytes), TypeError)
    await env.driver.putInput(id, 'empty.bin', (async function* () {})())
    const empty = await env.driver.run(id, {
      language: 'bash',
      code: 'stat -c %s /mnt/input/empty.bin',
    })
    assert.equal(empty.stdout.text, '0\n')
  })

  it('refuses hostile paths and malformed runs', async () => {
    for (const path of [
      '../etc/passwd',
      '/etc/passwd',
      'a/../../b',
      '',
      'a\0b',
      `${'x'.repeat(300)}`,
      '.',
    ]) {
      await assert.rejects(env.driver.putInput(id, path, Buffer.from('x')), SandboxError, path)
      await assert.rejects(env.driver.readOutput(id, path), SandboxError, path)
    }
    const bad = [
      { language: 'ruby', code: 'puts 1' },
      { language: 'python', code: 42 },
      { language: 'python', code: 'x'.repeat(1024 * 1024 + 1) },
    ] as never[]
    for (const request of bad) await assert.rejects(env.driver.run(id, request))
    await assert.rejects(
      env.driver.run('sbx-0000000000000000', { language: 'python', code: '1' }),
      {
        code: 'sandbox_not_found',
      },
    )
    await assert.rejects(env.driver.destroy('../../etc'), { code: 'sandbox_not_found' })
  })

  it('takes a flood of hostile protocol bytes from user code without harming the host', async () => {
    const result = await env.driver.run(id, {
      language: 'python',
      code: 'import os\nfor fd in range(3, 10):\n    try: os.write(fd, b"\\xff\\xff\\xff\\xff" + b"x" * 100)\n    except OSError: pass',
    })
    assert.ok(result.exitCode === 0 || result.kernelRestarted)
    const next = await env.driver.run(id, { language: 'python', code: '6 * 7' })
    assert.equal(next.stdout.text, '42\n')
  })

  it('destroys everything: processes, cgroups, disk, files', async () => {
    const { id: other } = await env.driver.create()
    const where = env.driver.inspect(other)
    assert.ok(where.cgroupDirs.every((dir) => existsSync(dir)))
    await env.driver.destroy(other)
    assert.ok(where.cgroupDirs.every((dir) => !existsSync(dir)))
    assert.equal(existsSync(where.disk), false)
    assert.ok(where.kernelPid !== undefined && !processExists(where.kernelPid))
    assert.ok(!(await env.driver.list()).some((s) => s.id === other))
    await env.driver.destroy(other)
  })

  it('lists orphans of an earlier driver and cleans them up', async () => {
    const orphan = (await env.driver.create()).id
    const second = await LocalDriver.open({
      stateDir: env.stateDir,
      cgroupParent: env.cgroupParent,
    })
    const seen = await second.list()
    assert.deepEqual(
      seen.filter((s) => s.id === orphan).map((s) => s.attached),
      [false],
    )
    await second.destroy(orphan)
    assert.ok(!(await env.driver.list()).some((s) => s.id === orphan))
  })

  it('hands out pooled sandboxes and refills the pool', async () => {
    const pool = new SandboxPool(env.driver, { size: 2 })
    await pool.start()
    assert.equal(pool.size, 2)
    const handle = await pool.acquire()
    const result = await env.driver.run(handle.id, { language: 'python', code: 'print(1)' })
    assert.equal(result.stdout.text, '1\n')
    await pool.settled()
    assert.equal(pool.size, 2)
    await env.driver.destroy(handle.id)
    await pool.close()
    assert.equal(pool.size, 0)
    assert.deepEqual(
      (await env.driver.list()).map((s) => s.id),
      [id],
    )
  })
})

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** What really runs in the sandbox's cgroup, read from the host. */
async function cgroupPids(driver: LocalDriver, id: string): Promise<number[]> {
  const [dir] = driver.inspect(id).cgroupDirs
  const text = await readFile(`${dir}/cgroup.procs`, 'utf8')
  return text.split('\n').filter(Boolean).map(Number)
}
