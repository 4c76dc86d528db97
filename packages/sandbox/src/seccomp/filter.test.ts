import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { BpfProgram, MAX_INSTRUCTIONS } from './bpf.js'
import { DENIED_SYSCALLS_X86_64, sandboxSeccompFilter } from './filter.js'

/** Runs a classic BPF seccomp program over one syscall, as the kernel would. */
function evaluate(program: Buffer, data: { nr: number; arch?: number; args?: number[] }): number {
  const words = new Map<number, number>([
    [0, data.nr >>> 0],
    [4, (data.arch ?? 0xc000003e) >>> 0],
  ])
  ;(data.args ?? []).forEach((value, i) => {
    words.set(16 + 8 * i, value >>> 0)
    words.set(20 + 8 * i, 0)
  })
  let a = 0
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = program.readUInt16LE(pc * 8)
    const jt = program.readUInt8(pc * 8 + 2)
    const jf = program.readUInt8(pc * 8 + 3)
    const k = program.readUInt32LE(pc * 8 + 4)
    switch (code) {
      case 0x20:
        a = words.get(k) ?? 0
        break
      case 0x15:
        pc += a === k ? jt : jf
        break
      case 0x35:
        pc += a >= k ? jt : jf
        break
      case 0x45:
        pc += (a & k) !== 0 ? jt : jf
        break
      case 0x05:
        pc += k
        break
      case 0x06:
        return k
      default:
        throw new Error(`unknown opcode ${code}`)
    }
  }
  throw new Error('fell off the program')
}

const ALLOW = 0x7fff0000
const EPERM = 0x00050001
const ENOSYS = 0x00050026
const KILL = 0x80000000

describe('seccomp filter', () => {
  const filter = sandboxSeccompFilter('x64')

  it('refuses every listed syscall with EPERM', () => {
    for (const [name, nr] of Object.entries(DENIED_SYSCALLS_X86_64)) {
      assert.equal(evaluate(filter, { nr }), EPERM, name)
    }
  })

  it('allows ordinary syscalls', () => {
    for (const nr of [0, 1, 2, 3, 9, 39, 57, 59, 231, 257])
      assert.equal(evaluate(filter, { nr }), ALLOW)
  })

  it('kills a foreign architecture and the x32 ABI', () => {
    assert.equal(evaluate(filter, { nr: 1, arch: 0x40000003 }), KILL)
    assert.equal(evaluate(filter, { nr: 0x40000000 | 101 }), KILL)
  })

  it('checks clone and unshare flags for namespaces', () => {
    assert.equal(evaluate(filter, { nr: 56, args: [0x11] }), ALLOW)
    assert.equal(evaluate(filter, { nr: 56, args: [0x10000000 | 0x11] }), EPERM)
    assert.equal(evaluate(filter, { nr: 272, args: [0x400] }), ALLOW)
    for (const flag of [
      0x80, 0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
    ]) {
      assert.equal(evaluate(filter, { nr: 272, args: [flag] }), EPERM, flag.toString(16))
    }
    assert.equal(evaluate(filter, { nr: 435 }), ENOSYS)
  })

  it('allows only Linux personalities and refuses TIOCSTI', () => {
    assert.equal(evaluate(filter, { nr: 135, args: [0] }), ALLOW)
    assert.equal(evaluate(filter, { nr: 135, args: [0xffffffff] }), ALLOW)
    assert.equal(evaluate(filter, { nr: 135, args: [0x0040000] }), EPERM)
    assert.equal(evaluate(filter, { nr: 16, args: [0, 0x5412] }), EPERM)
    assert.equal(evaluate(filter, { nr: 16, args: [0, 0x5401] }), ALLOW)
  })

  it('refuses unsupported architectures', () => {
    assert.throws(() => sandboxSeccompFilter('arm64'), /x86_64 only/)
  })
})

describe('bpf assembler', () => {
  it('encodes sock_filter entries with resolved forward jumps', () => {
    const program = new BpfProgram()
      .load(0)
      .jumpIfEqual(7, 'yes')
      .ret(1)
      .label('yes')
      .ret(2)
      .assemble()
    assert.equal(program.length, 32)
    assert.deepEqual([...program.subarray(8, 16)], [0x15, 0, 1, 0, 7, 0, 0, 0])
    assert.equal(evaluate(program, { nr: 7 }), 2)
    assert.equal(evaluate(program, { nr: 8 }), 1)
  })

  it('rejects undefined, duplicate and backward labels and oversized programs', () => {
    assert.throws(
      () => new BpfProgram().jumpIfEqual(1, 'nowhere').ret(0).assemble(),
      /undefined label/,
    )
    assert.throws(() => new BpfProgram().label('a').label('a'), /twice/)
    assert.throws(
      () => new BpfProgram().label('back').ret(0).jumpIfEqual(1, 'back').assemble(),
      /backward/,
    )
    const far = new BpfProgram().jumpIfEqual(1, 'end')
    for (let i = 0; i < 300; i++) far.ret(0)
    assert.throws(() => far.label('end').ret(1).assemble(), /too far/)
    const long = new BpfProgram()
    for (let i = 0; i <= MAX_INSTRUCTIONS; i++) long.ret(0)
    assert.throws(() => long.assemble(), /over the limit/)
  })
})
