import { createSocket, type Socket } from 'node:dgram'
import { isIP } from 'node:net'
import { v6Bytes } from '../addresses.js'

/**
 * A small authoritative DNS server over real UDP for tests: answers A and AAAA queries from a
 * fixed table, NXDOMAIN for anything else. Lets a test point names anywhere, including at
 * private addresses (the rebinding case), without touching the host's resolver.
 */
export class TestDnsServer {
  private constructor(
    private readonly socket: Socket,
    readonly address: string,
  ) {}

  static async start(
    records: Record<string, string[]>,
    host = '127.0.0.1',
  ): Promise<TestDnsServer> {
    const socket = createSocket('udp4')
    socket.on('message', (query, peer) => {
      const reply = answer(query, records)
      if (reply) socket.send(reply, peer.port, peer.address)
    })
    await new Promise<void>((resolve) => socket.bind(0, host, () => resolve()))
    return new TestDnsServer(socket, `${host}:${socket.address().port}`)
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()))
  }
}

function answer(query: Buffer, records: Record<string, string[]>): Buffer | null {
  if (query.length < 17) return null
  const labels: string[] = []
  let at = 12
  while (at < query.length && query[at] !== 0) {
    const length = query[at] as number
    labels.push(query.subarray(at + 1, at + 1 + length).toString('latin1'))
    at += length + 1
  }
  const questionEnd = at + 5
  if (questionEnd > query.length) return null
  const type = query.readUInt16BE(at + 1)
  const name = labels.join('.').toLowerCase()
  const family = type === 1 ? 4 : type === 28 ? 6 : 0
  const known = name in records
  const found = (records[name] ?? []).filter((a) => isIP(a) === family)
  const header = Buffer.alloc(12)
  header.writeUInt16BE(query.readUInt16BE(0), 0)
  header.writeUInt16BE(known ? 0x8180 : 0x8183, 2)
  header.writeUInt16BE(1, 4)
  header.writeUInt16BE(found.length, 6)
  const answers = found.map((address) => {
    const data = family === 4 ? address.split('.').map(Number) : v6Bytes(address)
    const record = Buffer.alloc(12)
    record.writeUInt16BE(0xc00c, 0)
    record.writeUInt16BE(type, 2)
    record.writeUInt16BE(1, 4)
    record.writeUInt32BE(0, 6)
    record.writeUInt16BE(data.length, 10)
    return Buffer.concat([record, Buffer.from(data)])
  })
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers])
}
