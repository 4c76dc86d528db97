import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, statfsSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { RunResult } from '../driver.js'
import { openTestDriver } from '../testing/harness.js'
import { defaultGateways } from '../testing/host-network.js'

/**
 * The second half of the attack suite: the addresses the first half leaves out (gateway, cloud
 * metadata), other sandboxes' processes, links, and the host-side effects of disk, CPU and
 * output floods, each asserted from the host.
 */
describe('sandbox attack suite: the host and other sandboxes stay unaffected', () => {
  let env: Awaited<ReturnType<typeof openTestDriver>>
  let id: string
  let other: string
  const python = (code: string, sandbox = id): Promise<RunResult> =>
    env.driver.run(sandbox, { language: 'python', code })
  const bash = (code: string, sandbox = id): Promise<RunResult> =>
    env.driver.run(sandbox, { language: 'bash', code })

  before(async () => {
    env = await openTestDriver({ runTimeoutMs: 3000, outputCapBytes: 2048 })
    id = (await env.driver.create()).id
    other = (await env.driver.create()).id
  })
  after(async () => {
    await env?.close()
  })

  it('reaches neither the default gateway, the metadata address nor loopback services', async () => {
    const targets = [...defaultGateways(), '169.254.169.254', '127.0.0.1', '::1', '10.0.2.2']
    const result = await python(`
import socket
out = set()
for addr in ${JSON.stringify(targets)}:
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    for port in (22, 53, 80, 443, 5432):
        try:
            s = socket.socket(family, socket.SOCK_STREAM); s.settimeout(0.5)
            s.connect((addr, port)); out.add("tcp-ok %s:%d" % (addr, port))
        except OSError:
            out.add("tcp-fail")
    try:
        u = socket.socket(family, socket.SOCK_DGRAM); u.settimeout(0.5)
        u.sendto(b"\\x00" * 12, (addr, 53)); u.recvfrom(512); out.add("udp-ok " + addr)
    except OSError:
        out.add("udp-fail")
print(" ".join(sorted(out)))
`)
    assert.equal(result.stdout.text, 'tcp-fail udp-fail\n')
  })

  it("cannot reach another sandbox's files or processes through /proc or host pids", async () => {
    await python('open("/mnt/output/secret.txt", "w").write("B only")', other)
    const victimPid = env.driver.inspect(other).kernelPid!
    const result = await python(`
import os, signal, ctypes
libc = ctypes.CDLL(None, use_errno=True)
out = []
try:
    out.append(open("/proc/${victimPid}/root/mnt/output/secret.txt").read())
except OSError as e:
    out.append(type(e).__name__)
try:
    os.kill(${victimPid}, signal.SIGKILL); out.append("signalled")
except OSError as e:
    out.append(type(e).__name__)
out.append(str(libc.ptrace(16, ${victimPid}, 0, 0)))
print(" ".join(out))
`)
    assert.doesNotMatch(result.stdout.text, /B only|signalled/)
    assert.equal((await python('print("B alive")', other)).stdout.text, 'B alive\n')
    assert.equal(env.driver.inspect(other).kernelPid, victimPid, 'B was never restarted')
    assert.equal((await env.driver.readOutput(other, 'secret.txt')).toString(), 'B only')
  })

  it('gains nothing from symlinks or hard links in /mnt/input and /mnt/output', async () => {
    const result = await bash(`
ln -sfn /etc /mnt/input/etc-link
ln -sfn / /mnt/input/root-link
ln -s /etc/passwd /mnt/output/passwd-link
ln /etc/passwd /mnt/output/passwd-hard 2>&1 | grep -o 'Invalid cross-device link'
ln /usr/bin/su /mnt/home/su-hard 2>&1 | grep -o 'Invalid cross-device link'
echo done
`)
    assert.match(result.stdout.text, /^(Invalid cross-device link\n){2}done\n$/)
    // The host writes through the links it is handed only inside the sandbox, never on the host.
    for (const path of ['etc-link/syntic-escape.txt', 'root-link/tmp/syntic-escape.txt']) {
      await env.driver.putInput(id, path, Buffer.from('x')).catch(() => undefined)
    }
    assert.equal(existsSync('/etc/syntic-escape.txt'), false)
    assert.equal(existsSync('/tmp/syntic-escape.txt'), false)
    await assert.rejects(env.driver.readOutput(id, 'passwd-link'), { code: 'invalid_path' })
    assert.deepEqual(
      (await env.driver.listOutput(id)).map((f) => f.path),
      [],
      'links are not outputs',
    )
  })

  it("fills its own disk, never the host's", async () => {
    const filler = (await env.driver.create({ diskBytes: 64 * 1024 ** 2 })).id
    try {
      const free = () => {
        const s = statfsSync(env.stateDir)
        return s.bavail * s.bsize
      }
      const before = free()
      const result = await bash(
        'dd if=/dev/urandom of=/mnt/home/fill bs=1M count=200 2>&1 | grep -o "No space left on device"; echo done',
        filler,
      )
      assert.equal(result.stdout.text, 'No space left on device\ndone\n')
      const used = before - free()
      assert.ok(used < 80 * 1024 ** 2, `the host lost ${used} bytes`)
      assert.equal((await python('print("still here")')).stdout.text, 'still here\n')
    } finally {
      await env.driver.destroy(filler)
    }
  })

  it('kills a CPU spin at the run timeout while another sandbox and the host keep running', async () => {
    let ticks = 0
    const timer = setInterval(() => ticks++, 50)
    try {
      const [spin, neighbour] = await Promise.all([
        python('while True: pass'),
        python('import time\nfor _ in range(5): time.sleep(0.1)\nprint("neighbour done")', other),
      ])
      assert.equal(spin.timedOut, true)
      assert.equal(spin.exitCode, 137)
      assert.equal(neighbour.timedOut, false)
      assert.equal(neighbour.stdout.text, 'neighbour done\n')
      assert.ok(ticks > 10, `the host's event loop ran ${ticks} times`)
    } finally {
      clearInterval(timer)
    }
    assert.equal((await python('print("after")')).stdout.text, 'after\n')
  })

  it('keeps host memory bounded under an output flood', async () => {
    const before = process.memoryUsage().rss
    let peak = before
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, 5)
    try {
      const result = await python(
        'import sys, os\nchunk = "y" * (1 << 20)\nfor _ in range(200): sys.stdout.write(chunk)\n_ = os.system("head -c 100000000 /dev/zero")',
      )
      assert.equal(result.stdout.bytes, 200 * 1024 * 1024 + 100_000_000)
      assert.ok(result.stdout.text.length < 2200)
    } finally {
      clearInterval(sampler)
    }
    const growth = Math.max(peak, process.memoryUsage().rss) - before
    assert.ok(growth < 32 * 1024 ** 2, `host RSS grew by ${growth} bytes`)
  })

  it('leaks nothing of the host through /proc and /sys, and writes to neither', async () => {
    const hostPids = spawnSync('sh', ['-c', 'ls /proc | grep -c "^[0-9]"']).stdout.toString()
    const result = await bash(`
ls /sys/kernel /sys/fs/cgroup /sys/class/net 2>&1 | grep -c 'No such file'
(echo 1 > /sys/fs/cgroup/pids.max) 2>/dev/null && echo wrote-cgroup
(echo 1 > /sys/kernel/mm/transparent_hugepage/enabled) 2>/dev/null && echo wrote-sys-kernel
(echo c > /proc/sysrq-trigger) 2>/dev/null && echo wrote-sysrq
(echo 1 > /proc/sys/vm/drop_caches) 2>/dev/null && echo wrote-drop-caches
(head -c 16 /proc/kcore | wc -c) 2>/dev/null | grep -v '^0$' | sed 's/^/read-kcore /'
dmesg 2>&1 | grep -c 'Operation not permitted'
cat /proc/kmsg 2>/dev/null | head -c 1 | wc -c
ls /proc | grep -c '^[0-9]'
`)
    const lines = result.stdout.text.trim().split('\n')
    assert.deepEqual(lines.slice(0, 3), ['3', '1', '0'], result.stdout.text)
    assert.ok(Number(lines[3]) <= 6, `visible processes: ${lines[3]} (host: ${hostPids.trim()})`)
    assert.ok(Number(lines[3]) < Number(hostPids))
    assert.doesNotMatch(result.stdout.text, /wrote-|read-kcore/)
    assert.doesNotMatch(
      result.stdout.text,
      new RegExp(env.stateDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    )
  })
})
