import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { RunResult } from '../driver.js'
import { requireImage } from '../image/build.js'
import { removeCgroupParent } from '../local/cgroups.js'
import { LocalDriver } from '../local/local-driver.js'
import type { EgressDecision } from './proxy.js'
import { TestDnsServer } from './testing/dns-server.js'
import { startTargetNetwork, type TargetNetwork } from './testing/target-network.js'
import { TARGETS } from './testing/targets.js'

/**
 * The proxy refuses private and loopback destinations, so the suite cannot use servers on
 * 127.0.0.1. It re-runs itself in a new network namespace (no trace on the host's network),
 * where a second namespace joined by a veth pair holds the destinations at public-looking
 * 11.0.0.x addresses, and a test DNS server names them. Sandboxes, proxy and rules are the real
 * ones, with no bypass.
 */
const INSIDE = 'SYNTIC_EGRESS_TEST_NETNS'
const self = fileURLToPath(import.meta.url)

if (process.env[INSIDE] !== '1') {
  it('egress suite, run in its own network namespace', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, [INSIDE]: '1' }
    delete env.NODE_TEST_CONTEXT
    const child = spawn(
      'unshare',
      ['--net', '--', process.execPath, '--test', '--test-reporter=spec', self],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    process.stdout.write(output.replace(/^/gm, '# '))
    assert.equal(code, 0, output)
    assert.match(output, /pass \d+/)
    assert.match(output, /fail 0/)
  })
} else {
  describe('sandbox egress', () => {
    const decisions: EgressDecision[] = []
    let network: TargetNetwork | undefined
    let dns: TestDnsServer
    let driver: LocalDriver
    const stateDir = mkdtempSync(join(tmpdir(), 'syntic-egress-test-'))
    const cgroupParent = `syntic-egress-test-${process.pid}`
    const ids = { plain: '', a: '', b: '', mirror: '' }
    const python = (id: string, code: string): Promise<RunResult> =>
      driver.run(id, { language: 'python', code })
    const bash = (id: string, code: string): Promise<RunResult> =>
      driver.run(id, { language: 'bash', code })
    const out = (result: RunResult) => `${result.stdout.text}${result.stderr.text}`
    // Sends a raw request to the in-sandbox forwarder and returns what came back.
    const PROXY_HELPER = `
import socket
def proxy(head, until=None):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
    s.sendall(head.encode())
    data = b""
    while until is None or until not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return data.decode("latin1")
`

    before(async () => {
      network = await startTargetNetwork()
      dns = await TestDnsServer.start({
        'allowed.test': [TARGETS.allowed],
        'other.test': [TARGETS.other],
        'mirror.test': [TARGETS.mirror],
        'rebind.test': ['127.0.0.1'],
        'metadata.test': ['169.254.169.254'],
        'gateway.test': [TARGETS.gateway],
        'mixed.test': [TARGETS.allowed, '10.0.0.1'],
      })
      driver = await LocalDriver.open({
        rootfs: requireImage(),
        stateDir,
        cgroupParent,
        limits: { runTimeoutMs: 60_000 },
        packageMirror: null,
        egressProxy: { dnsServers: [dns.address], log: (d) => decisions.push(d) },
      })
      const [plain, a, b, mirror] = await Promise.all([
        driver.create(),
        driver.create({
          egress: {
            allow: [
              'allowed.test',
              'rebind.test',
              'metadata.test',
              'gateway.test',
              'mixed.test',
              '127.0.0.1',
              '169.254.169.254',
            ],
          },
        }),
        driver.create({ egress: { allow: ['other.test'] } }),
        driver.create({ egress: { mirror: { url: 'http://mirror.test:8080/simple/' } } }),
      ])
      Object.assign(ids, { plain: plain.id, a: a.id, b: b.id, mirror: mirror.id })
      for (const id of [ids.plain, ids.a, ids.b]) await python(id, PROXY_HELPER)
    })

    after(async () => {
      await driver?.close()
      await dns?.close()
      network?.close()
      if (driver) removeCgroupParent(driver.cgroups, cgroupParent)
      rmSync(stateDir, { recursive: true, force: true })
    })

    it('gives a sandbox without egress no network, no proxy and no socket', async () => {
      const result = await bash(
        ids.plain,
        `env | grep -ci proxy; ls -A /opt/syntic/egress | wc -l
curl -sS -m 3 http://${TARGETS.allowed}/ 2>&1 | head -c 200
curl -sS -m 3 -x http://127.0.0.1:3128 http://allowed.test/ 2>&1 | head -c 200`,
      )
      const [proxies, mounted, direct, viaPort] = result.stdout.text.split('\n')
      assert.equal(proxies, '0')
      assert.equal(mounted, '0')
      assert.match(direct ?? '', /Couldn't connect|unreachable|Failed to connect/i)
      assert.match(viaPort ?? '', /Couldn't connect|Failed to connect/i)
      const dnsTry = await python(
        ids.plain,
        `
import socket
for host in ["allowed.test", "pypi.org"]:
    try:
        print(socket.getaddrinfo(host, 443))
    except OSError as e:
        print("no-dns")
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"x", ("${TARGETS.gateway}", 53)); print("udp-sent")
except OSError:
    print("udp-fail")
`,
      )
      assert.equal(dnsTry.stdout.text, 'no-dns\nno-dns\nudp-fail\n')
    })

    it('reaches an allowlisted host through the proxy with curl and urllib', async () => {
      const curl = await bash(ids.a, 'curl -sS -m 10 http://allowed.test/')
      assert.equal(curl.stdout.text, 'hello from allowed.test\n', out(curl))
      const urllib = await python(
        ids.a,
        'import urllib.request\nprint(urllib.request.urlopen("http://allowed.test/", timeout=10).read().decode(), end="")',
      )
      assert.equal(urllib.stdout.text, 'hello from allowed.test\n', out(urllib))
      const tunnel = await python(
        ids.a,
        'print(proxy("CONNECT allowed.test:443 HTTP/1.1\\r\\nHost: allowed.test:443\\r\\n\\r\\n", b"tls-ish hello\\n"), end="")',
      )
      assert.equal(tunnel.stdout.text, 'HTTP/1.1 200 Connection established\r\n\r\ntls-ish hello\n')
      assert.ok(
        decisions.some(
          (d) => d.sandbox === ids.a && d.host === 'allowed.test' && d.port === 443 && d.allowed,
        ),
      )
    })

    it('refuses hosts not on the list', async () => {
      const result = await bash(
        ids.a,
        'curl -s -m 10 -o /dev/null -w "%{http_code}\\n" http://other.test/; curl -sS -m 10 https://pypi.org/ 2>&1 | head -c 300',
      )
      assert.match(result.stdout.text, /^403\n/)
      assert.match(result.stdout.text, /CONNECT tunnel failed, response 403|403/)
      assert.ok(decisions.some((d) => d.sandbox === ids.a && d.host === 'pypi.org' && !d.allowed))
    })

    it('refuses private IP literals, metadata, rebinding answers and the host itself, even when listed', async () => {
      const result = await python(
        ids.a,
        `
for target in ["127.0.0.1:443", "169.254.169.254:443", "[::1]:443", "[::ffff:127.0.0.1]:443", "rebind.test:443", "metadata.test:443", "gateway.test:443", "mixed.test:443"]:
    print(target, proxy("CONNECT %s HTTP/1.1\\r\\n\\r\\n" % target).split("\\r\\n")[0])
print(proxy("GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\\r\\n\\r\\n").split("\\r\\n")[0])
`,
      )
      const lines = result.stdout.text.trim().split('\n')
      assert.equal(lines.length, 9, out(result))
      for (const line of lines) assert.match(line, /HTTP\/1\.1 403 Forbidden$/, line)
      const refused = decisions.filter(
        (d) => d.sandbox === ids.a && d.reason === 'forbidden_address',
      )
      assert.ok(refused.some((d) => d.host === 'rebind.test' && d.address === '127.0.0.1'))
      assert.ok(refused.some((d) => d.host === 'gateway.test' && d.address === TARGETS.gateway))
      assert.ok(refused.some((d) => d.host === 'mixed.test' && d.address === '10.0.0.1'))
    })

    it('never bypasses the proxy: direct TCP, UDP and DNS from an egress sandbox fail', async () => {
      const result = await python(
        ids.a,
        `
import socket
for addr in ["${TARGETS.allowed}", "${TARGETS.gateway}"]:
    try:
        socket.create_connection((addr, 80), timeout=3); print("tcp-ok")
    except OSError:
        print("tcp-fail")
try:
    socket.getaddrinfo("allowed.test", 80); print("dns-ok")
except OSError:
    print("dns-fail")
`,
      )
      assert.equal(result.stdout.text, 'tcp-fail\ntcp-fail\ndns-fail\n', out(result))
    })

    it('keeps each sandbox to its own allowlist', async () => {
      const fromB = await bash(
        ids.b,
        'curl -s -m 10 http://other.test/; curl -s -m 10 -o /dev/null -w "%{http_code}\\n" http://allowed.test/; ls -A /opt/syntic/egress',
      )
      assert.equal(fromB.stdout.text, 'hello from other.test\n403\nproxy.sock\n', out(fromB))
      const fromA = await bash(
        ids.a,
        'curl -s -m 10 -o /dev/null -w "%{http_code}\\n" http://other.test/',
      )
      assert.equal(fromA.stdout.text, '403\n')
      assert.ok(
        decisions.some((d) => d.sandbox === ids.b && d.host === 'allowed.test' && !d.allowed),
      )
    })

    it('installs packages from the configured mirror, and reaches nothing else', async () => {
      const env = await bash(ids.mirror, 'echo "$PIP_INDEX_URL $PIP_TRUSTED_HOST"')
      assert.equal(env.stdout.text, 'http://mirror.test:8080/simple/ mirror.test\n')
      const download = await bash(
        ids.mirror,
        'pip download --no-deps --disable-pip-version-check -q -d /tmp/dl tinypkg && ls /tmp/dl',
      )
      assert.equal(download.stdout.text, 'tinypkg-1.0-py3-none-any.whl\n', out(download))
      const install = await bash(
        ids.mirror,
        'pip install --no-deps --disable-pip-version-check -q tinypkg 2>&1 | grep -v WARNING; true',
      )
      assert.equal(install.exitCode, 0, out(install))
      const imported = await python(ids.mirror, 'import tinypkg\ntinypkg.VALUE')
      assert.equal(imported.stdout.text, '42\n', out(imported))
      const elsewhere = await bash(
        ids.mirror,
        'curl -s -m 10 -o /dev/null -w "%{http_code}\\n" http://allowed.test/',
      )
      assert.equal(elsewhere.stdout.text, '403\n')
      const served = await network!.served()
      assert.ok(
        served.includes('mirror GET /files/tinypkg-1.0-py3-none-any.whl'),
        JSON.stringify(served),
      )
    })

    it('keeps egress across a kernel restart', async () => {
      const killed = await python(ids.b, 'import os\nos._exit(3)')
      assert.equal(killed.kernelRestarted, true)
      const again = await bash(ids.b, 'curl -s -m 10 http://other.test/')
      assert.equal(again.stdout.text, 'hello from other.test\n', out(again))
    })

    it('removes the proxy socket with the sandbox', async () => {
      const socket = join(stateDir, ids.b, 'egress', 'proxy.sock')
      assert.equal(existsSync(socket), true)
      await driver.destroy(ids.b)
      assert.equal(existsSync(socket), false)
    })
  })
}
