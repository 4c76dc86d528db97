import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import { createInterface } from 'node:readline'
import { tinyWheel } from './wheel.js'

/**
 * Destinations for the egress tests, run as its own process in its own network namespace: the
 * test moves one end of a veth pair in, then writes a line; this configures the addresses,
 * listens, and prints "ready". Addresses are 11.0.0.x: public-looking, reachable only here.
 */
export const TARGETS = {
  gateway: '11.0.0.1',
  allowed: '11.0.0.10',
  other: '11.0.0.20',
  mirror: '11.0.0.30',
  link: 'synegt1',
} as const

const wheel = tinyWheel('tinypkg', '1.0', 'VALUE = 42\n')
const sha = createHash('sha256').update(wheel.data).digest('hex')
const log: string[] = []

function listenHttp(host: string, port: number, name: string): Promise<void> {
  const server = createServer((req, res) => {
    log.push(`${name} ${req.method} ${req.url}`)
    if (name !== 'mirror') {
      res.end(`hello from ${name}\n`)
    } else if (req.url === '/_log') {
      res.end(JSON.stringify(log))
    } else if (req.url === '/simple/tinypkg/') {
      res.setHeader('Content-Type', 'text/html')
      res.end(
        `<html><body><a href="/files/${wheel.filename}#sha256=${sha}">${wheel.filename}</a></body></html>\n`,
      )
    } else if (req.url === `/files/${wheel.filename}`) {
      res.end(wheel.data)
    } else {
      res.statusCode = 404
      res.end('not found\n')
    }
  })
  return new Promise((resolve) => server.listen(port, host, resolve))
}

async function main(): Promise<void> {
  const lines = createInterface({ input: process.stdin })
  await new Promise((resolve) => lines.once('line', resolve))
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'inherit' })
  ip('link', 'set', 'lo', 'up')
  for (const address of [TARGETS.allowed, TARGETS.other, TARGETS.mirror]) {
    ip('addr', 'add', `${address}/24`, 'dev', TARGETS.link)
  }
  ip('link', 'set', TARGETS.link, 'up')
  await listenHttp(TARGETS.allowed, 80, 'allowed.test')
  await listenHttp(TARGETS.other, 80, 'other.test')
  await listenHttp(TARGETS.mirror, 8080, 'mirror')
  const tls = createTcpServer((socket) => {
    log.push('allowed.test CONNECT 443')
    socket.write('tls-ish hello\n')
    socket.pipe(socket)
  })
  await new Promise<void>((resolve) => tls.listen(443, TARGETS.allowed, resolve))
  process.stdout.write('ready\n')
  lines.once('close', () => process.exit(0))
}

if (process.argv[2] === 'serve') void main()
