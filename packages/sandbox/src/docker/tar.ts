/** Just enough of the tar format (POSIX ustar, with pax headers for long paths) to send files. */

const BLOCK = 512

export interface TarEntry {
  /** Relative path inside the archive, `/`-separated. */
  path: string
  type: 'file' | 'directory'
  mode: number
  uid: number
  gid: number
  /** File contents; none for a directory. */
  data?: Uint8Array
}

/** An archive of the given entries, with the two zero blocks that end it. */
export function tarArchive(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = []
  const mtime = Math.floor(Date.now() / 1000)
  for (const entry of entries) {
    const name = entry.type === 'directory' ? `${entry.path}/` : entry.path
    const size = entry.type === 'file' ? (entry.data?.length ?? 0) : 0
    if (Buffer.byteLength(name) > 100) {
      const record = paxRecord('path', name)
      parts.push(
        header({
          name: 'PaxHeader',
          type: 'x',
          size: record.length,
          mode: 0o644,
          uid: 0,
          gid: 0,
          mtime,
        }),
      )
      parts.push(record, padding(record.length))
    }
    parts.push(
      header({
        // Readers take the pax header's path; the short name only stands in for it.
        name: Buffer.byteLength(name) > 100 ? 'syntic-long-path' : name,
        type: entry.type === 'directory' ? '5' : '0',
        size,
        mode: entry.mode,
        uid: entry.uid,
        gid: entry.gid,
        mtime,
      }),
    )
    if (entry.type === 'file' && entry.data && size > 0) {
      parts.push(Buffer.from(entry.data.buffer, entry.data.byteOffset, size), padding(size))
    }
  }
  parts.push(Buffer.alloc(2 * BLOCK))
  return Buffer.concat(parts)
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK)
}

/** A pax record is `<length> <key>=<value>\n`, the length counting itself. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`
  const bodyBytes = Buffer.byteLength(body)
  let length = bodyBytes + 1
  while (bodyBytes + String(length).length !== length) length = bodyBytes + String(length).length
  return Buffer.from(`${length}${body}`)
}

interface Header {
  name: string
  type: string
  size: number
  mode: number
  uid: number
  gid: number
  mtime: number
}

function header(h: Header): Buffer {
  const block = Buffer.alloc(BLOCK)
  block.write(h.name, 0, 100, 'utf8')
  octal(block, 100, 8, h.mode & 0o7777)
  octal(block, 108, 8, h.uid)
  octal(block, 116, 8, h.gid)
  octal(block, 124, 12, h.size)
  octal(block, 136, 12, h.mtime)
  block.fill(0x20, 148, 156)
  block.write(h.type, 156, 1, 'ascii')
  block.write('ustar\u000000', 257, 8, 'binary')
  let sum = 0
  for (const byte of block) sum += byte
  block.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'binary')
  return block
}

function octal(block: Buffer, offset: number, width: number, value: number): void {
  const digits = value.toString(8)
  if (digits.length > width - 1) throw new RangeError(`tar field too small for ${value}`)
  block.write(`${digits.padStart(width - 1, '0')}\u0000`, offset, width, 'binary')
}
