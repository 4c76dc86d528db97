import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createConnection, createServer, type Server } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { RunResult } from '../driver.js'
import type { EgressOptions } from '../egress/policy.js'
import type { EgressDecision } from '../egress/proxy.js'
import { TestDnsServer } from '../egress/testing/dns-server.js'
import { startTargetNetwork, type TargetNetwork } from '../egress/testing/target-network.js'
import { TARGETS } from '../egress/testing/targets.js'
import { DockerDriver } from './docker-driver.js'
import { openTestDockerDriver } from './testing.js'

/**
 * Egress on the Docker driver against the real Podman service. As in the local driver's egress
 * suite, the file re-runs itself in a new network namespace, with the 11.0.0.x targets in a
 * second one: the proxy runs in this process and dials from this namespace, while Podman (in the
 * host's namespace) is reached through its unix socket and bind-mounts the proxy's socket into
 * containers that have no network at all. Nothing is added to the host's network.
 */
const INSIDE = 'SYNTIC_DOCKER_EGRESS_TEST_NETNS'
const self = fileURLToPath(import.meta.url)

if (process.env[INSIDE] !== '1') {
  it('docker egress suite, run in its own network namespace', async () => {
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
  describe('docker sandbox egress', () => {
    const decisions: EgressDecision[] = []
    let network: TargetNetwork
    let dns: TestDnsServer
    let test: Awaited<ReturnType<typeof openTestDockerDriver>>
    const ids = { plain: '', a: '', mirror: '' }
    const bash = (id: string, code: string): Promise<RunResult> =>
      test.driver.run(id, { language: 'bash', code })
    const out = (result: RunResult) => `${result.stdout.text}${result.stderr.text}`

    before(async () => {
      network = await startTargetNetwork()
      dns = await TestDnsServer.start({
        'allowed.test': [TARGETS.allowed],
        'other.test': [TARGETS.other],
        'mirror.test': [TARGETS.mirror],
        'rebind.test': ['127.0.0.1'],
      })
      test = await openTestDockerDriver(
        { runTimeoutMs: 60_000 },
        {
          packageMirror: null,
          egressProxy: { dnsServers: [dns.address], log: (d) => decisions.push(d) },
        },
      )
      const [plain, a, mirror] = await Promise.all([
        test.driver.create(),
        test.driver.create({ egress: { allow: ['allowed.test', 'rebind.test', '127.0.0.1'] } }),
        test.driver.create({ egress: { mirror: { url: 'http://mirror.test:8080/simple/' } } }),
      ])
      Object.assign(ids, { plain: plain.id, a: a.id, mirror: mirror.id })
    })

    after(async () => {
      await test?.close()
      await dns?.close()
      network?.close()
    })

    it('reports egress on a local daemon', () => {
      assert.equal(test.driver.egress, true)
    })

    it('gives a container without egress no network, no proxy and no socket', async () => {
      const result = await bash(
        ids.plain,
        `env | grep -ci proxy; ls -A /opt/syntic/egress 2>/dev/null | wc -l
curl -sS -m 3 http://${TARGETS.allowed}/ 2>&1 | head -c 200
curl -sS -m 3 -x http://127.0.0.1:3128 http://allowed.test/ 2>&1 | head -c 200`,
      )
      const [proxies, mounted, direct, viaPort] = result.stdout.text.split('\n')
      assert.equal(proxies, '0', out(result))
      assert.equal(mounted, '0')
      assert.match(direct ?? '', /Couldn't connect|unreachable|Failed to connect/i)
      assert.match(viaPort ?? '', /Couldn't connect|Failed to connect/i)
    })

    it('reaches an allowlisted host through the proxy, and nothing directly', async () => {
      const curl = await bash(ids.a, 'curl -sS -m 10 http://allowed.test/')
      assert.equal(curl.stdout.text, 'hello from allowed.test\n', out(curl))
      const direct = await bash(
        ids.a,
        `curl -sS -m 3 --noproxy '*' http://${TARGETS.allowed}/ >/dev/null 2>&1 && echo tcp-ok || echo tcp-fail`,
      )
      assert.equal(direct.stdout.text, 'tcp-fail\n', out(direct))
      assert.ok(
        decisions.some((d) => d.sandbox === ids.a && d.host === 'allowed.test' && d.allowed),
      )
    })

    it('refuses hosts not on the list, private literals and rebinding answers', async () => {
      const result = await bash(
        ids.a,
        `for url in http://other.test/ http://127.0.0.1/ http://rebind.test/ http://169.254.169.254/; do
  curl -s -m 10 --noproxy '' -o /dev/null -w "%{http_code}\\n" "$url"
done`,
      )
      assert.equal(result.stdout.text, '403\n403\n403\n403\n', out(result))
      assert.ok(decisions.some((d) => d.sandbox === ids.a && d.host === 'other.test' && !d.allowed))
      assert.ok(
        decisions.some(
          (d) =>
            d.sandbox === ids.a && d.host === 'rebind.test' && d.reason === 'forbidden_address',
        ),
      )
    })

    it('downloads packages from the configured mirror, and reaches nothing else', async () => {
      const download = await bash(
        ids.mirror,
        'pip download --no-deps --disable-pip-version-check -q -d /tmp/dl tinypkg && ls /tmp/dl',
      )
      assert.equal(download.stdout.text, 'tinypkg-1.0-py3-none-any.whl\n', out(download))
      const elsewhere = await bash(
        ids.mirror,
        'curl -s -m 10 -o /dev/null -w "%{http_code}\\n" http://allowed.test/',
      )
      assert.equal(elsewhere.stdout.text, '403\n')
      const served = await network.served()
      assert.ok(
        served.includes('mirror GET /files/tinypkg-1.0-py3-none-any.whl'),
        JSON.stringify(served),
      )
    })

    it('keeps egress across a container restart', async () => {
      const killed = await test.driver.run(ids.a, {
        language: 'python',
        code: 'import os\nos._exit(3)',
      })
      assert.equal(killed.kernelRestarted, true)
      const again = await bash(ids.a, 'curl -sS -m 10 http://allowed.test/')
      assert.equal(again.stdout.text, 'hello from allowed.test\n', out(again))
    })

    it('refuses malformed egress options', async () => {
      const hostile: unknown[] = [
        { allow: 'allowed.test' },
        { allow: [42] },
        { allow: ['http://allowed.test/path'] },
        { allow: ['a'.repeat(400)] },
        { allow: Array.from({ length: 1001 }, (_, i) => `h${i}.test`) },
        { mirror: { url: 'ftp://mirror.test/' } },
        'all',
      ]
      for (const egress of hostile) {
        await assert.rejects(
          test.driver.create({ egress: egress as EgressOptions }),
          TypeError,
          JSON.stringify(egress).slice(0, 80),
        )
      }
    })

    it('removes the proxy socket with the container', async () => {
      const socket = `${test.stateDir}/${ids.mirror}/egress/proxy.sock`
      assert.equal(existsSync(socket), true)
      await test.driver.destroy(ids.mirror)
      assert.equal(existsSync(socket), false)
      assert.equal(existsSync(`${test.stateDir}/${ids.mirror}`), false)
    })

    describe('on a remote host', () => {
      let relay: Server
      let host: string
      before(async () => {
        // A real http:// Engine API: this namespace's loopback relayed to the Podman socket.
        const socketPath = new URL(test.host).pathname
        relay = createServer((client) => {
          const daemon = createConnection(socketPath)
          client.pipe(daemon).pipe(client)
          client.on('error', () => daemon.destroy())
          daemon.on('error', () => client.destroy())
        })
        await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
        const address = relay.address()
        assert.ok(address && typeof address === 'object')
        host = `http://127.0.0.1:${address.port}`
      })
      after(() => relay?.close())

      it('refuses a package mirror when opening, saying why', async () => {
        await assert.rejects(
          DockerDriver.open({ host, packageMirror: { url: 'http://mirror.test:8080/simple/' } }),
          /needs the Docker daemon on this machine \(a unix:\/\/ host\)/,
        )
      })

      it('reports no egress and refuses an allowlist, creating nothing', async () => {
        const remote = await DockerDriver.open({
          host,
          group: test.group,
          image: test.driver.image,
          packageMirror: null,
        })
        try {
          assert.equal(remote.egress, false)
          await assert.rejects(
            remote.create({ egress: { allow: ['allowed.test'] } }),
            /needs the Docker daemon on this machine/,
          )
          assert.deepEqual(
            (await remote.list()).filter((s) => !Object.values(ids).includes(s.id)),
            [],
          )
        } finally {
          await remote.close()
        }
      })
    })
  })
}
