import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { existsSync, statfsSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { after, before, describe, it } from 'node:test'
import type { RunResult } from '../driver.js'
import { defaultGateways } from '../testing/host-network.js'
import { openTestDockerDriver } from './testing.js'

/** Attacks from inside a Docker-driver sandbox on Podman; each must fail, the host unaffected. */
describe('docker driver attack suite (against Podman)', () => {
  let env: Awaited<ReturnType<typeof openTestDockerDriver>>
  let id: string
  const python = (code: string): Promise<RunResult> =>
    env.driver.run(id, { language: 'python', code })
  const bash = (code: string): Promise<RunResult> => env.driver.run(id, { language: 'bash', code })

  before(async () => {
    // Small limits so the bombs hit them in seconds; the mechanisms are those of the defaults.
    env = await openTestDockerDriver({
      runTimeoutMs: 8000,
      outputCapBytes: 2048,
      memoryBytes: 256 * 1024 ** 2,
      diskBytes: 64 * 1024 ** 2,
      pidsMax: 64,
    })
    id = (await env.driver.create()).id
  })
  after(async () => {
    await env?.close()
  })

  it('has no network: no interface but loopback, no TCP to the host, no DNS', async () => {
    const received: string[] = []
    const tcp = createServer((socket: Socket) => {
      received.push(`tcp from ${socket.remoteAddress}`)
      socket.destroy()
    })
    await new Promise<void>((resolve) => tcp.listen(0, '0.0.0.0', resolve))
    const port = (tcp.address() as { port: number }).port
    const udp = createSocket({ type: 'udp4' })
    udp.on('message', (_m, from) => received.push(`udp from ${from.address}`))
    await new Promise<void>((resolve) => udp.bind(0, '0.0.0.0', resolve))
    const udpPort = udp.address().port
    const addresses = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && a.family === 'IPv4')
      .map((a) => a!.address)
    const others = [...defaultGateways(), '169.254.169.254', '10.0.2.2', '172.17.0.1', '10.88.0.1']
    try {
      const result = await python(`
import socket
results = set()
for addr in ${JSON.stringify([...addresses, ...others])}:
    try:
        s = socket.socket(); s.settimeout(1); s.connect((addr, ${port})); results.add("tcp-ok " + addr)
    except OSError:
        results.add("tcp-fail")
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.sendto(b"hello", (addr, ${udpPort}))
    except OSError:
        pass
try:
    socket.getaddrinfo("deb.debian.org", 80); results.add("dns-ok")
except OSError:
    results.add("dns-fail")
print(" ".join(sorted(results)))
print(sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:]))
`)
      assert.equal(result.stdout.text, "dns-fail tcp-fail\n['lo']\n")
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.deepEqual(received, [])
    } finally {
      tcp.close()
      udp.close()
    }
  })

  it('contains a memory bomb: the kernel is killed and restarted, the sandbox stays usable', async () => {
    const result = await python(
      'blocks = []\nwhile True: blocks.append(bytearray(64 * 1024 * 1024))',
    )
    assert.equal(result.kernelRestarted, true)
    assert.equal(result.exitCode, 137)
    assert.equal((await python('print(2 + 2)')).stdout.text, '4\n')
  })

  it('contains a fork bomb at the pids limit', async () => {
    const result = await bash(':(){ :|:& };: ; sleep 2; echo survived')
    assert.ok(result.timedOut || result.kernelRestarted || /survived/.test(result.stdout.text))
    const after = await bash('ls /proc | grep -c "^[0-9]"')
    assert.ok(Number(after.stdout.text) < 10, after.stdout.text)
    const host = spawnSync('true')
    assert.equal(host.status, 0, 'the host can still start processes')
  })

  it('enforces the disk limit on /mnt and /tmp together', async () => {
    const free = () => {
      const s = statfsSync(tmpdir())
      return s.bavail * s.bsize
    }
    const hostFree = free()
    const result = await bash(
      'dd if=/dev/zero of=/mnt/output/fill bs=1M count=100 2>&1 | grep -o "No space left on device"; dd if=/dev/zero of=/tmp/fill bs=1M count=10 2>&1 | grep -o "No space left on device"; du -sm /mnt/output/fill | cut -f1',
    )
    assert.match(result.stdout.text, /^(No space left on device\n){2}\d+\n$/)
    assert.ok(Number(result.stdout.text.trim().split('\n').pop()) <= 64)
    assert.ok(hostFree - free() < 80 * 1024 ** 2, 'the host lost no more than the limit')
    await bash('rm -f /mnt/output/fill /tmp/fill')
  })

  it('gains nothing from setuid binaries, capabilities or escape syscalls', async () => {
    const result = await python(`
import os, ctypes, subprocess
libc = ctypes.CDLL(None, use_errno=True)
out = []
out.append(subprocess.run(["su", "-c", "id"], capture_output=True, input=b"").returncode != 0)
caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith(("CapEff", "CapBnd", "CapPrm"))]
out.append(set(caps) == {"0000000000000000"})
out.append([l.split()[1] for l in open("/proc/self/status") if l.startswith("NoNewPrivs")] == ["1"])
out.append(libc.unshare(0x10000000) == -1)
out.append(libc.mount(b"none", b"/mnt/home", b"tmpfs", 0, None) == -1)
out.append(libc.ptrace(16, 1, None, None) == -1)
try:
    open("/etc/passwd", "a"); out.append(False)
except OSError:
    out.append(True)
try:
    os.kill(1, 9); out.append(True)
except OSError:
    out.append(True)
print(out)
`)
    assert.equal(
      result.stdout.text,
      `${JSON.stringify(Array(8).fill(true)).replace(/,/g, ', ').replace(/true/g, 'True')}\n`,
    )
  })

  it('cannot redirect a later putInput through a symlink out of its container', async () => {
    await bash('ln -sfn /etc /mnt/input/evil; ln -sfn / /mnt/input/root')
    await env.driver.putInput(id, 'evil/syntic-escape.txt', Buffer.from('x')).catch(() => undefined)
    await env.driver
      .putInput(id, 'root/tmp/syntic-escape.txt', Buffer.from('x'))
      .catch(() => undefined)
    assert.equal(existsSync('/etc/syntic-escape.txt'), false)
    assert.equal(existsSync('/tmp/syntic-escape.txt'), false)
  })

  it('sees none of the host in /proc', async () => {
    const result = await bash('ls /proc | grep -c "^[0-9]"; cat /proc/1/cmdline | tr "\\0" " "')
    const [count, init] = result.stdout.text.split('\n')
    assert.ok(Number(count) < 10, count)
    assert.match(init ?? '', /^\/bin\/sh -c/)
  })
})
