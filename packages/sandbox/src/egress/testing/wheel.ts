import { createHash } from 'node:crypto'
import { crc32 } from 'node:zlib'

/** Builds a stored (uncompressed) zip archive. */
export function zip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text)
    const nameBytes = Buffer.from(name)
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x21, 12)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02014b50, 0)
    entry.writeUInt16LE(20, 4)
    entry.writeUInt16LE(20, 6)
    entry.writeUInt16LE(0x21, 14)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(data.length, 20)
    entry.writeUInt32LE(data.length, 24)
    entry.writeUInt16LE(nameBytes.length, 28)
    entry.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, data)
    central.push(entry, nameBytes)
    offset += local.length + nameBytes.length + data.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(Object.keys(files).length, 8)
  end.writeUInt16LE(Object.keys(files).length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** A pure-Python wheel of one module `<name>/__init__.py` with the given source. */
export function tinyWheel(
  name: string,
  version: string,
  source: string,
): { filename: string; data: Buffer } {
  const info = `${name}-${version}.dist-info`
  const files: Record<string, string> = {
    [`${name}/__init__.py`]: source,
    [`${info}/METADATA`]: `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
    [`${info}/WHEEL`]:
      'Wheel-Version: 1.0\nGenerator: syntic-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
  }
  const record = Object.entries(files).map(([path, text]) => {
    const digest = createHash('sha256').update(text).digest('base64url')
    return `${path},sha256=${digest},${Buffer.byteLength(text)}`
  })
  files[`${info}/RECORD`] = `${[...record, `${info}/RECORD,,`].join('\n')}\n`
  return { filename: `${name}-${version}-py3-none-any.whl`, data: zip(files) }
}
