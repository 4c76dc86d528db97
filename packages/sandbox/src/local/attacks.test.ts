import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer, type Socket } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { RunResult } from '../driver.js'
import { DEFAULT_LIMITS } from '../limits.js'
import { DENIED_SYSCALLS_X86_64 } from '../seccomp/filter.js'
import { openTestDriver } from '../testing/harness.js'

/** Attacks from inside a sandbox; each must fail with the host (and other sandboxes) unaffected. */
describe('sandbox attack suite', () => {
  let env: Awaited<ReturnType<typeof openTestDriver>>
  let id: string
  const python = (code: string, sandbox = id): Promise<RunResult> =>
    env.driver.run(sandbox, { language: 'python', code })
  const bash = (code: string, sandbox = id): Promise<RunResult> =>
    env.driver.run(sandbox, { language: 'bash', code })

  before(async () => {
    env = await openTestDriver({ runTimeoutMs: 3000, outputCapBytes: 2048 })
    id = (await env.driver.create()).id
  })
  after(async () => {
    await env?.close()
  })

  it('reaches no address of the host over TCP, UDP or DNS', async () => {
    const received: string[] = []
    const tcp = createServer((socket: Socket) => {
      received.push(`tcp from ${socket.remoteAddress}`)
      socket.destroy()
    })
    await new Promise<void>((resolve) => tcp.listen(0, '::', resolve))
    const udp = createSocket({ type: 'udp6' })
    udp.on('message', (_m, from) => received.push(`udp from ${from.address}`))
    await new Promise<void>((resolve) => udp.bind(0, '::', resolve))
    const tcpPort = (tcp.address() as { port: number }).port
    const udpPort = udp.address().port
    const addresses = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.address.startsWith('fe80'))
      .map((a) => a!.address)
    assert.ok(addresses.includes('127.0.0.1') && addresses.length >= 2, addresses.join(' '))
    try {
      const result = await python(`
import socket
results = []
for addr in ${JSON.stringify(addresses)}:
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    try:
        s = socket.socket(family, socket.SOCK_STREAM); s.settimeout(1)
        s.connect((addr, ${tcpPort})); results.append("tcp-ok " + addr)
    except OSError as e:
        results.append("tcp-fail")
    try:
        u = socket.socket(family, socket.SOCK_DGRAM)
        u.sendto(b"hello", (addr, ${udpPort}))
    except OSError:
        pass
try:
    socket.getaddrinfo("deb.debian.org", 80); results.append("dns-ok")
except OSError:
    results.append("dns-fail")
for resolver in ["8.8.8.8", "1.1.1.1"]:
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(1)
        u.sendto(b"\\x00" * 12, (resolver, 53)); u.recvfrom(512); results.append("udp53-ok")
    except OSError:
        results.append("udp53-fail")
print(" ".join(sorted(set(results))))
print(open("/proc/net/dev").read().count(":"))
`)
      assert.equal(result.stdout.text, 'dns-fail tcp-fail udp53-fail\n1\n')
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.deepEqual(received, [])
    } finally {
      tcp.close()
      udp.close()
    }
  })

  it('cannot read or write the host files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syntic-host-secret-'))
    const secret = join(dir, 'secret.txt')
    writeFileSync(secret, 'host secret')
    try {
      const result = await bash(`
cat ${secret} 2>&1 | head -c 100; echo
for f in /etc/probe /usr/probe /opt/syntic/kernel/kernel.py /probe; do
  (echo x >> $f) 2>/dev/null && echo "wrote $f"
done
cat /proc/1/root${secret} 2>&1 | head -c 100; echo
grep -c . /etc/shadow 2>&1 | head -c 100; echo
ls /work /root 2>&1 | head -c 200; echo
`)
      assert.doesNotMatch(result.stdout.text, /host secret|wrote /)
      assert.match(result.stdout.text, /No such file or directory/)
      assert.equal(readFileSync(secret, 'utf8'), 'host secret')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("cannot see or touch another sandbox's files", async () => {
    const other = (await env.driver.create()).id
    try {
      await python('open("/mnt/output/mine.txt", "w").write("private to A")', other)
      const result = await bash(
        'ls /mnt/output; cat /mnt/output/mine.txt 2>&1; grep -c loop /proc/mounts; find / -xdev -name mine.txt 2>/dev/null | wc -l',
      )
      assert.doesNotMatch(result.stdout.text, /private to A/)
      const a = env.driver.inspect(other)
      const b = env.driver.inspect(id)
      assert.notEqual(a.hostUid, b.hostUid)
      const mode = statSync(a.disk).mode & 0o777
      assert.equal(mode, 0o700)
      assert.equal((await env.driver.readOutput(other, 'mine.txt')).toString(), 'private to A')
    } finally {
      await env.driver.destroy(other)
    }
  })

  it('contains a fork bomb with the pids limit', async () => {
    const bomb = (await env.driver.create({ pidsMax: 64 })).id
    try {
      const result = await bash(':(){ :|:& };:; sleep 1; echo still-running', bomb)
      const pidsDir = env.driver.inspect(bomb).cgroupDirs.find((d) => existsIn(d, 'pids.max'))!
      const pidsMax = await readFile(join(pidsDir, 'pids.max'), 'utf8')
      assert.equal(pidsMax.trim(), '64')
      const events = await readFile(join(pidsDir, 'pids.events'), 'utf8')
      assert.ok(
        Number(/max (\d+)/.exec(events)?.[1]) > 0,
        `the bomb never hit the limit: ${events}`,
      )
      assert.ok(
        result.timedOut || result.exitCode !== 0 || /still-running/.test(result.stdout.text),
      )
      assert.equal((await python('print("alive")', bomb)).stdout.text, 'alive\n')
      assert.ok(await hostCanSpawn())
    } finally {
      await env.driver.destroy(bomb)
    }
  })

  it('contains a memory bomb with the memory limit, swap included', async () => {
    const hog = (await env.driver.create({ memoryBytes: 128 * 1024 ** 2 })).id
    try {
      const result = await python('chunks = []\nwhile True: chunks.append(b"x" * (16 << 20))', hog)
      assert.equal(result.kernelRestarted, true)
      assert.notEqual(result.exitCode, 0)
      assert.equal((await python('print("alive")', hog)).stdout.text, 'alive\n')
    } finally {
      await env.driver.destroy(hog)
    }
  })

  it('stops a disk fill at the disk limit', async () => {
    const filler = (await env.driver.create({ diskBytes: 64 * 1024 ** 2 })).id
    try {
      const result = await bash(
        'dd if=/dev/zero of=/mnt/home/fill bs=1M count=200 2>&1 | tail -c 300; dd if=/dev/zero of=/tmp/fill2 bs=1M count=10 2>&1 | tail -c 200; du -sm /mnt/home/fill | cut -f1',
        filler,
      )
      assert.match(result.stdout.text, /No space left on device/)
      const written = Number(result.stdout.text.trim().split('\n').pop())
      assert.ok(written < 64, `wrote ${written} MiB`)
      const image = statSync(join(env.stateDir, filler, 'disk.img'))
      assert.ok(image.blocks * 512 <= 64 * 1024 ** 2)
    } finally {
      await env.driver.destroy(filler)
    }
  })

  it('gives the kernel the default limits: 2 CPUs, 4 GB without swap, 5 GB disk, pids', async () => {
    const defaults = (
      await env.driver.create({
        runTimeoutMs: DEFAULT_LIMITS.runTimeoutMs,
        outputCapBytes: DEFAULT_LIMITS.outputCapBytes,
      })
    ).id
    try {
      const dirs = env.driver.inspect(defaults).cgroupDirs
      const read = (file: string) => {
        const dir = dirs.find((d) => existsIn(d, file))
        assert.ok(dir, `no cgroup file ${file}`)
        return readFileSync(join(dir, file), 'utf8').trim()
      }
      if (env.driver.cgroups.version === 1) {
        assert.equal(Number(read('cpu.cfs_quota_us')) / Number(read('cpu.cfs_period_us')), 2)
        assert.equal(Number(read('memory.limit_in_bytes')), 4 * 1024 ** 3)
        assert.equal(Number(read('memory.memsw.limit_in_bytes')), 4 * 1024 ** 3)
      } else {
        const [quota, period] = read('cpu.max').split(' ').map(Number)
        assert.equal(quota! / period!, 2)
        assert.equal(Number(read('memory.max')), 4 * 1024 ** 3)
        assert.equal(read('memory.swap.max'), '0')
      }
      assert.equal(Number(read('pids.max')), DEFAULT_LIMITS.pidsMax)
      const result = await python(
        'import os\ns = os.statvfs("/mnt")\nt = os.statvfs("/tmp")\nprint(s.f_blocks * s.f_frsize, s.f_fsid == t.f_fsid)',
        defaults,
      )
      const [size, shared] = result.stdout.text.trim().split(' ')
      assert.ok(Math.abs(Number(size) - 5 * 1024 ** 3) < 0.05 * 5 * 1024 ** 3, size)
      assert.equal(shared, 'True')
    } finally {
      await env.driver.destroy(defaults)
    }
  })

  it('kills a CPU spin of many processes at the run timeout', async () => {
    const result = await python(
      'import multiprocessing as mp\ndef spin():\n    while True: pass\nfor _ in range(4): mp.Process(target=spin).start()\nwhile True: pass',
    )
    assert.equal(result.timedOut, true)
    const dirs = env.driver.inspect(id).cgroupDirs
    const procs = readFileSync(join(dirs[0]!, 'cgroup.procs'), 'utf8').trim().split('\n')
    assert.ok(procs.length <= 3, `left: ${procs.length}`)
  })

  it('caps an output flood on both streams', async () => {
    const result = await python(
      'import sys, subprocess\nchunk = "x" * (1 << 20)\nfor _ in range(100): sys.stdout.write(chunk)\n_ = subprocess.run("head -c 50000000 /dev/zero >&2", shell=True)',
    )
    assert.equal(result.exitCode, 0)
    assert.equal(result.stdout.bytes, 100 * 1024 * 1024)
    assert.equal(result.stderr.bytes, 50_000_000)
    assert.ok(result.stdout.text.length < 2200 && result.stderr.text.length < 2200)
  })

  it('gains nothing from setuid binaries or capabilities', async () => {
    const result = await bash(`
grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status | tr '\\t' ' '
su -c id root </dev/null 2>&1 | head -c 80 | tr '\\n' ' '; echo
mount -t tmpfs none /tmp 2>&1 | head -c 80 | tr '\\n' ' '; echo
python3 -c "import os; os.setuid(0)" 2>&1 | tail -n1
id -u
`)
    const out = result.stdout.text
    assert.match(out, /CapEff: 0000000000000000/)
    assert.match(out, /CapPrm: 0000000000000000/)
    assert.match(out, /CapBnd: 0000000000000000/)
    assert.match(out, /NoNewPrivs: 1/)
    assert.match(out, /OSError: \[Errno 22\]|PermissionError/)
    assert.doesNotMatch(out, /uid=0/)
    assert.match(out, /\n1000\n$/)
  })

  it('cannot ptrace or signal processes outside', async () => {
    const victim = spawn('sleep', ['60'], { stdio: 'ignore' })
    try {
      const result = await python(`
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
out = []
try:
    os.kill(${victim.pid}, signal.SIGKILL); out.append("killed")
except OSError as e:
    out.append(type(e).__name__)
out.append(str(libc.ptrace(16, ${victim.pid}, 0, 0)) + ":" + str(ctypes.get_errno()))
out.append(str(libc.ptrace(16, 1, 0, 0)) + ":" + str(ctypes.get_errno()))
print(" ".join(out))
`)
      assert.equal(result.stdout.text, 'ProcessLookupError -1:1 -1:1\n')
      await python('import os, signal\nos.kill(-1, signal.SIGKILL)')
      assert.equal((await python('print("alive")')).stdout.text, 'alive\n')
      assert.equal(victim.exitCode, null)
      assert.equal(victim.signalCode, null)
    } finally {
      victim.kill()
    }
  })

  it('shows no host processes in /proc and nothing writable in /proc or /sys', async () => {
    const result = await bash(`
ls /proc | grep -c '^[0-9]'
ls /sys | wc -l
(echo 1 > /proc/sys/kernel/panic) 2>/dev/null && echo wrote-sysctl
(echo b > /proc/sysrq-trigger) 2>/dev/null && echo wrote-sysrq
(head -c 1 /proc/kcore) >/dev/null 2>&1 && echo read-kcore
cat /proc/1/cmdline | tr '\\0' ' '; echo
hostname
`)
    const [count, sys, ...rest] = result.stdout.text.trim().split('\n')
    assert.ok(Number(count) <= 6, `visible processes: ${count}`)
    assert.equal(sys, '0')
    const text = rest.join('\n')
    assert.doesNotMatch(text, /wrote-|read-kcore/)
    assert.match(text, /bwrap|python3/)
    assert.match(text, /sandbox$/)
  })

  it('refuses the escape syscalls with EPERM (seccomp)', async () => {
    const probes: Record<string, string> = {}
    for (const [name, nr] of Object.entries(DENIED_SYSCALLS_X86_64))
      probes[name] = `syscall(${nr}, 0, 0, 0, 0, 0)`
    probes['unshare(CLONE_NEWUSER)'] = 'syscall(272, 0x10000000)'
    probes['clone(CLONE_NEWNET)'] = 'syscall(56, 0x40000000 | 17, 0, 0, 0, 0)'
    probes['personality(ADDR_NO_RANDOMIZE)'] = 'syscall(135, 0x0040000)'
    probes['ioctl(TIOCSTI)'] = 'syscall(16, 0, 0x5412, 0)'
    const result = await python(`
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
syscall = libc.syscall
out = {}
for name, call in ${JSON.stringify(probes)}.items():
    ctypes.set_errno(0)
    rv = eval(call)
    out[name] = ctypes.get_errno() if rv == -1 else "allowed"
out["clone3"] = syscall(435, 0, 0) == -1 and ctypes.get_errno()
out["unshare(CLONE_FILES)"] = syscall(272, 0x400)
out["personality(query)"] = syscall(135, 0xffffffff) >= 0
print(json.dumps(out))
`)
    assert.equal(result.stderr.text, '')
    const out = JSON.parse(result.stdout.text) as Record<string, unknown>
    for (const name of Object.keys(probes)) assert.equal(out[name], 1, `${name}: ${out[name]}`)
    assert.equal(out.clone3, 38)
    assert.equal(out['unshare(CLONE_FILES)'], 0)
    assert.equal(out['personality(query)'], true)
    const x32 = await bash(
      `python3 -c 'import ctypes; ctypes.CDLL(None).syscall(0x40000000 | 39)'; echo "status $?"`,
    )
    assert.match(x32.stdout.text, /status 159/)
  })
})

function existsIn(dir: string, file: string): boolean {
  try {
    statSync(join(dir, file))
    return true
  } catch {
    return false
  }
}

function hostCanSpawn(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('true')
    child.on('error', () => resolve(false))
    child.on('close', (code) => resolve(code === 0))
  })
}
