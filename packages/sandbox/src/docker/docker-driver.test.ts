import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { SandboxError } from '../driver.js'
import { CHUNK_BYTES } from '../kernel-replies.js'
import { SandboxPool } from '../pool.js'
import { assertRunCancels } from '../testing/cancel-run.js'
import { streamedInput } from '../testing/streamed-input.js'
import { DockerDriver } from './docker-driver.js'
import { openTestDockerDriver } from './testing.js'

describe('docker driver (against Podman): runs, files, lifecycle', () => {
  let env: Awaited<ReturnType<typeof openTestDockerDriver>>
  let id: string

  before(async () => {
    env = await openTestDockerDriver({ runTimeoutMs: 2000, outputCapBytes: 1024 })
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
    assert.deepEqual([first.exitCode, first.stdout.text], [0, 'set\n'])
    const second = await env.driver.run(id, {
      language: 'python',
      code: 'json.dumps({"x": x * 2 + 2})',
    })
    assert.equal(second.stdout.text, `'{"x": 42}'\n`)
    assert.equal(second.kernelRestarted, false)
  })

  it('runs as the unprivileged sandbox user with the data libraries', async () => {
    const result = await env.driver.run(id, {
      language: 'python',
      code: 'import os, pandas, numpy, matplotlib.pyplot, openpyxl, pypdf\nprint(os.getuid(), os.getcwd(), pandas.DataFrame({"a": [1, 2]}).a.sum())',
    })
    assert.equal(result.stderr.text, '')
    assert.equal(result.stdout.text, '1000 /mnt/home 3\n')
  })

  it('reports exceptions and exit codes, and runs Bash with its status', async () => {
    const error = await env.driver.run(id, {
      language: 'python',
      code: 'print("before")\nraise ValueError("bad")',
    })
    assert.equal(error.exitCode, 1)
    assert.match(error.stderr.text, /ValueError: bad/)
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
    assert.ok(result.stdout.text.startsWith('HEAD') && result.stdout.text.endsWith('TAIL\n'))
    assert.ok(result.stdout.text.length < 1200)
  })

  it('kills a run past the timeout with what it started, restarts the kernel, keeps files', async () => {
    const short = (await env.driver.create()).id
    await env.driver.run(short, {
      language: 'bash',
      code: 'echo kept > /mnt/output/kept.txt; echo tmp > /tmp/t',
    })
    await env.driver.run(short, { language: 'python', code: 'marker = 1' })
    const result = await env.driver.run(short, {
      language: 'python',
      code: 'import subprocess\nsubprocess.Popen(["sleep", "1000"])\nwhile True: pass',
    })
    assert.deepEqual([result.timedOut, result.kernelRestarted, result.exitCode], [true, true, 137])
    assert.match(result.stderr.text, /2 s limit/)
    const after = await env.driver.run(short, {
      language: 'bash',
      code: 'cat /proc/[0-9]*/comm; cat /mnt/output/kept.txt /tmp/t',
    })
    assert.doesNotMatch(after.stdout.text, /sleep/)
    assert.match(after.stdout.text, /kept\ntmp\n$/)
    const gone = await env.driver.run(short, { language: 'python', code: "'marker' in globals()" })
    assert.equal(gone.stdout.text, 'False\n')
    await env.driver.destroy(short)
  })

  it('cancels a run when the signal aborts: kills what it started, stays usable', async () => {
    await assertRunCancels(env.driver, id)
  })

  it('restarts a kernel that died and says so', async () => {
    const died = await env.driver.run(id, { language: 'python', code: 'import os\nos._exit(3)' })
    assert.deepEqual([died.kernelRestarted, died.exitCode], [true, 3])
    const next = await env.driver.run(id, { language: 'python', code: '1 + 1' })
    assert.equal(next.stdout.text, '2\n')
  })

  it('copies files into /mnt/input and reads files from /mnt/output', async () => {
    const big = Buffer.alloc(9 * 1024 * 1024 + 7, 0x61)
    await env.driver.putInput(id, 'data/orders.csv', Buffer.from('a,b\n1,2\n3,4\n'))
    await env.driver.putInput(id, 'big.bin', big)
    await env.driver.putInput(id, `${'n'.repeat(200)}/x.txt`, Buffer.from('deep'))
    const result = await env.driver.run(id, {
      language: 'python',
      code: [
        'import pandas as pd, os, shutil',
        'df = pd.read_csv("/mnt/input/data/orders.csv")',
        'os.makedirs("/mnt/output/sub", exist_ok=True)',
        'df.to_csv("/mnt/output/sub/sum.csv", index=False)',
        'shutil.copy("/mnt/input/big.bin", "/mnt/output/big.bin")',
        'os.symlink("/etc/passwd", "/mnt/output/link")',
        `print(int(df.b.sum()), os.path.getsize("/mnt/input/big.bin"), os.stat("/mnt/input/data/orders.csv").st_uid, open("/mnt/input/${'n'.repeat(200)}/x.txt").read())`,
      ].join('\n'),
    })
    assert.equal(result.stderr.text, '')
    assert.equal(result.stdout.text, `6 ${big.length} 1000 deep\n`)
    assert.deepEqual(await env.driver.listOutput(id), [
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
    const { content, digest } = streamedInput()
    await env.driver.putInput(id, 'streamed.bin', content)
    const result = await env.driver.run(id, {
      language: 'python',
      code: 'import hashlib, shutil\nshutil.copy("/mnt/input/streamed.bin", "/mnt/output/streamed.bin")\nprint(hashlib.sha256(open("/mnt/input/streamed.bin", "rb").read()).hexdigest())',
    })
    assert.equal(result.stdout.text, `${digest}\n`)
    const hash = createHash('sha256')
    let pieces = 0
    for await (const chunk of env.driver.readOutputChunks(id, 'streamed.bin')) {
      assert.ok(chunk.length <= CHUNK_BYTES)
      pieces++
      hash.update(chunk)
    }
    assert.equal(pieces, 3)
    assert.equal(hash.digest('hex'), digest)
    await env.driver.run(id, {
      language: 'bash',
      code: 'rm /mnt/input/streamed.bin /mnt/output/streamed.bin',
    })
  })

  it('refuses hostile paths, malformed runs and unknown sandboxes', async () => {
    for (const path of [
      '../etc/passwd',
      '/etc/passwd',
      'a/../../b',
      '',
      'a\0b',
      'x'.repeat(300),
      '.',
    ]) {
      await assert.rejects(env.driver.putInput(id, path, Buffer.from('x')), SandboxError, path)
      await assert.rejects(env.driver.readOutput(id, path), SandboxError, path)
    }
    const bad = [
      { language: 'ruby', code: 'puts 1' },
      { language: 'python', code: 42 },
      { language: 'python', code: 'x'.repeat(1024 * 1024 + 1) },
      null,
    ] as never[]
    for (const request of bad) await assert.rejects(env.driver.run(id, request))
    await assert.rejects(
      env.driver.run('sbx-0000000000000000', { language: 'python', code: '1' }),
      {
        code: 'sandbox_not_found',
      },
    )
    await assert.rejects(env.driver.destroy('../../etc'), { code: 'sandbox_not_found' })
    // Egress itself is covered in egress.test.ts; here only that bad options create nothing.
    await assert.rejects(env.driver.create({ egress: { allow: ['http://pypi.org/'] } }), TypeError)
  })

  it('survives hostile protocol bytes written by user code', async () => {
    const result = await env.driver.run(id, {
      language: 'python',
      code: 'import os\nfor fd in range(3, 10):\n    try: os.write(fd, b"\\xff\\xff\\xff\\xff" + b"x" * 100)\n    except OSError: pass',
    })
    assert.ok(result.exitCode === 0 || result.kernelRestarted)
    const next = await env.driver.run(id, { language: 'python', code: '6 * 7' })
    assert.equal(next.stdout.text, '42\n')
  })

  it('destroys the container and its disk; lists and cleans orphans of an earlier driver', async () => {
    const { id: other } = await env.driver.create()
    const { disk } = env.driver.inspect(other)
    assert.ok(disk && existsSync(disk))
    await env.driver.destroy(other)
    assert.equal(existsSync(disk), false)
    assert.ok(!(await env.driver.list()).some((s) => s.id === other))
    await env.driver.destroy(other)

    const orphan = (await env.driver.create()).id
    const second = await DockerDriver.open({
      host: env.host,
      group: env.group,
      stateDir: env.stateDir,
    })
    assert.deepEqual(
      (await second.list()).filter((s) => s.id === orphan).map((s) => s.attached),
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
    assert.deepEqual(
      (await env.driver.list()).map((s) => s.id),
      [id],
    )
  })

  it('refuses hosts it cannot use', async () => {
    await assert.rejects(DockerDriver.open({ host: 'ftp://x' }), TypeError)
    await assert.rejects(
      DockerDriver.open({ host: 'unix:///nonexistent/docker.sock', disk: 'tmpfs' }),
      /does not answer/,
    )
    await assert.rejects(
      DockerDriver.open({ host: 'http://127.0.0.1:1', disk: 'loop' }),
      /unix socket/,
    )
    await assert.rejects(DockerDriver.open({ host: env.host, group: '../x' }), /group/)
  })
})
