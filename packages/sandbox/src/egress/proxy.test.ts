import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { type AddressInfo, connect, createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { resolveEgress } from './policy.js'
import { type EgressDecision, EgressProxy } from './proxy.js'
import { TestDnsServer } from './testing/dns-server.js'

/** Sends raw bytes to a proxy socket and collects everything it answers until it closes. */
function exchange(socketPath: string, data: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath)
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.write(data)
  })
}

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  )
}

describe('egress proxy (host side)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syntic-egress-proxy-'))
  const decisions: EgressDecision[] = []
  const proxy = new EgressProxy({
    log: (d) => decisions.push(d),
    maxConnectionsPerSandbox: 3,
    maxBytesPerSandbox: 64 * 1024,
  })
  const seen: Record<string, string | undefined>[] = []
  const mirror = createServer((req, res) => {
    seen.push({
      url: req.url,
      auth: req.headers['proxy-authorization'],
      conn: req.headers.connection,
    })
    res.end(req.url === '/big' ? 'x'.repeat(200 * 1024) : `mirror:${req.url}`)
  })
  const echo = createTcpServer((socket) => socket.pipe(socket))
  let dns: TestDnsServer
  let mirrorPort = 0
  let echoPort = 0
  const sock = (name: string) => join(dir, `${name}.sock`)

  before(async () => {
    mirrorPort = await listen(mirror)
    echoPort = await listen(echo)
    dns = await TestDnsServer.start({
      'rebind.test': ['127.0.0.1'],
      'meta.test': ['169.254.169.254'],
    })
    const mirrorOption = { url: `http://127.0.0.1:${mirrorPort}/simple/` }
    const a = resolveEgress(
      { allow: [`127.0.0.1:${echoPort}`, `localhost:${echoPort}`] },
      mirrorOption,
    )
    const b = resolveEgress({ allow: ['*.example.com'] }, null)
    assert.ok(a && b)
    await proxy.attach('sbx-a', sock('a'), a, 65534)
    await proxy.attach('sbx-b', sock('b'), b, 65533)
  })

  after(async () => {
    await proxy.close()
    mirror.close()
    echo.close()
    await dns.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('gives each sandbox a socket only its uid may open', () => {
    const info = statSync(sock('a'))
    assert.ok(info.isSocket())
    assert.equal(info.uid, 65534)
    assert.equal(info.mode & 0o777, 0o600)
  })

  it('relays plain HTTP to the mirror in origin form, without proxy headers, one request per connection', async () => {
    const reply = await exchange(
      sock('a'),
      `GET http://127.0.0.1:${mirrorPort}/simple/tinypkg/ HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\n\r\n`,
    )
    assert.match(reply, /^HTTP\/1\.1 200/)
    assert.match(reply, /mirror:\/simple\/tinypkg\//)
    assert.deepEqual(seen.at(-1), { url: '/simple/tinypkg/', auth: undefined, conn: 'close' })
    assert.deepEqual(decisions.at(-1), {
      sandbox: 'sbx-a',
      host: '127.0.0.1',
      port: mirrorPort,
      method: 'http',
      allowed: true,
      reason: 'mirror',
      address: '127.0.0.1',
    })
  })

  it('tunnels CONNECT to the mirror', async () => {
    const reply = await exchange(
      sock('a'),
      `CONNECT 127.0.0.1:${mirrorPort} HTTP/1.1\r\n\r\nGET /x HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n`,
    )
    assert.match(reply, /^HTTP\/1\.1 200 Connection established\r\n\r\nHTTP\/1\.1 200/)
    assert.match(reply, /mirror:\/x/)
  })

  it('refuses private IP literals and names resolving to them even when listed', async () => {
    const literal = await exchange(sock('a'), `CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\n\r\n`)
    assert.match(literal, /^HTTP\/1\.1 403/)
    assert.equal(decisions.at(-1)?.reason, 'forbidden_address')
    const named = await exchange(sock('a'), `CONNECT localhost:${echoPort} HTTP/1.1\r\n\r\n`)
    assert.match(named, /^HTTP\/1\.1 403/)
    assert.equal(decisions.at(-1)?.address, '127.0.0.1')
    const mapped = await exchange(
      sock('a'),
      `CONNECT [::ffff:127.0.0.1]:${echoPort} HTTP/1.1\r\n\r\n`,
    )
    assert.match(mapped, /^HTTP\/1\.1 403/)
  })

  it('refuses hosts not on the allowlist, and another sandbox reaching this one’s mirror', async () => {
    const reply = await exchange(sock('a'), 'CONNECT pypi.org:443 HTTP/1.1\r\n\r\n')
    assert.match(
      reply,
      /^HTTP\/1\.1 403[\s\S]*pypi\.org:443 is not on this sandbox's egress allowlist/,
    )
    assert.equal(decisions.at(-1)?.reason, 'not_allowed')
    const other = await exchange(
      sock('b'),
      `GET http://127.0.0.1:${mirrorPort}/simple/ HTTP/1.1\r\n\r\n`,
    )
    assert.match(other, /^HTTP\/1\.1 403/)
    assert.deepEqual(
      { sandbox: decisions.at(-1)?.sandbox, reason: decisions.at(-1)?.reason },
      { sandbox: 'sbx-b', reason: 'not_allowed' },
    )
  })

  it('answers malformed, hostile and oversized heads with 4xx and no connection', async () => {
    const cases: [string | Buffer, RegExp][] = [
      ['garbage\r\n\r\n', /^HTTP\/1\.1 400/],
      ['GET / HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 405/],
      ['GET https://a.example.com/ HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 405/],
      ['CONNECT a.example.com:443 HTTP/1.1\r\nX: a\nY: b\r\n\r\n', /^HTTP\/1\.1 400/],
      [Buffer.alloc(20 * 1024, 'A'), /^HTTP\/1\.1 400[\s\S]*larger than/],
      [Buffer.from([0xff, 0x00, 0x0d, 0x0a, 0x0d, 0x0a]), /^HTTP\/1\.1 400/],
    ]
    for (const [data, expected] of cases) {
      assert.match(await exchange(sock('b'), data), expected)
    }
  })

  it('bounds connections per sandbox', async () => {
    const idle = [connect(sock('b')), connect(sock('b')), connect(sock('b'))]
    await Promise.all(idle.map((s) => new Promise((r) => s.once('connect', r))))
    await new Promise((r) => setTimeout(r, 50))
    const reply = await exchange(sock('b'), 'CONNECT a.example.com:443 HTTP/1.1\r\n\r\n')
    assert.match(reply, /^HTTP\/1\.1 429/)
    for (const s of idle) s.destroy()
  })

  it('cuts a sandbox off past its byte allowance', async () => {
    const big = await exchange(
      sock('a'),
      `GET http://127.0.0.1:${mirrorPort}/big HTTP/1.1\r\nHost: m\r\n\r\n`,
    )
    assert.ok(big.length < 200 * 1024, `got ${big.length} bytes`)
    assert.ok(decisions.some((d) => d.sandbox === 'sbx-a' && d.reason === 'byte_limit'))
    const next = await exchange(sock('a'), `GET http://127.0.0.1:${mirrorPort}/x HTTP/1.1\r\n\r\n`)
    assert.match(next, /^HTTP\/1\.1 429/)
  })

  it('resolves through its own DNS servers and refuses rebinding answers', async () => {
    const resolving = new EgressProxy({ dnsServers: [dns.address], log: (d) => decisions.push(d) })
    const policy = resolveEgress({ allow: ['rebind.test', 'meta.test', 'missing.test'] }, null)
    assert.ok(policy)
    await resolving.attach('sbx-c', sock('c'), policy, 65532)
    try {
      for (const host of ['rebind.test', 'meta.test']) {
        const reply = await exchange(sock('c'), `CONNECT ${host}:443 HTTP/1.1\r\n\r\n`)
        assert.match(reply, /^HTTP\/1\.1 403[\s\S]*resolves to an address/)
      }
      assert.equal(decisions.at(-1)?.address, '169.254.169.254')
      const missing = await exchange(sock('c'), 'CONNECT missing.test:443 HTTP/1.1\r\n\r\n')
      assert.match(missing, /^HTTP\/1\.1 502/)
    } finally {
      await resolving.close()
    }
  })

  it('stops listening when a sandbox is detached', async () => {
    await proxy.detach('sbx-b')
    await assert.rejects(exchange(sock('b'), 'CONNECT a.example.com:443 HTTP/1.1\r\n\r\n'))
  })
})
