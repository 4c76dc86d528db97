/**
 * A small assembler for classic BPF, the language of seccomp filters: loads of the 32-bit words of
 * `struct seccomp_data`, conditional jumps to labels, returns. Jumps go forward only, as the
 * kernel requires.
 */

const LD_W_ABS = 0x20
const JMP_JA = 0x05
const JMP_JEQ_K = 0x15
const JMP_JGE_K = 0x35
const JMP_JSET_K = 0x45
const RET_K = 0x06

/** Classic BPF's limit on program length (BPF_MAXINSNS). */
export const MAX_INSTRUCTIONS = 4096

type Target = string | null

type Instruction =
  | { op: 'load'; offset: number }
  | { op: 'jump'; code: number; k: number; ifTrue: Target; ifFalse: Target }
  | { op: 'goto'; to: string }
  | { op: 'return'; value: number }
  | { op: 'label'; name: string }

/** Builds a program; a `null` jump target means the next instruction. */
export class BpfProgram {
  private readonly items: Instruction[] = []

  load(offset: number): this {
    return this.push({ op: 'load', offset })
  }

  jumpIfEqual(k: number, ifTrue: Target, ifFalse: Target = null): this {
    return this.push({ op: 'jump', code: JMP_JEQ_K, k, ifTrue, ifFalse })
  }

  jumpIfAtLeast(k: number, ifTrue: Target, ifFalse: Target = null): this {
    return this.push({ op: 'jump', code: JMP_JGE_K, k, ifTrue, ifFalse })
  }

  jumpIfAnyBit(k: number, ifTrue: Target, ifFalse: Target = null): this {
    return this.push({ op: 'jump', code: JMP_JSET_K, k, ifTrue, ifFalse })
  }

  goto(to: string): this {
    return this.push({ op: 'goto', to })
  }

  ret(value: number): this {
    return this.push({ op: 'return', value })
  }

  label(name: string): this {
    if (this.items.some((i) => i.op === 'label' && i.name === name)) {
      throw new Error(`bpf: label ${name} defined twice`)
    }
    return this.push({ op: 'label', name })
  }

  /** Encodes `struct sock_filter[]` little-endian (every supported architecture is), resolving labels. */
  assemble(): Buffer {
    const positions = new Map<string, number>()
    let count = 0
    for (const item of this.items) {
      if (item.op === 'label') positions.set(item.name, count)
      else count++
    }
    if (count > MAX_INSTRUCTIONS) throw new Error(`bpf: ${count} instructions, over the limit`)
    const out = Buffer.alloc(count * 8)
    let pc = 0
    const offsetTo = (target: Target, maximum: number): number => {
      if (target === null) return 0
      const at = positions.get(target)
      if (at === undefined) throw new Error(`bpf: undefined label ${target}`)
      const offset = at - pc - 1
      if (offset < 0) throw new Error(`bpf: backward jump to ${target}`)
      if (offset > maximum) throw new Error(`bpf: jump to ${target} too far (${offset})`)
      return offset
    }
    for (const item of this.items) {
      if (item.op === 'label') continue
      let code: number
      let jt = 0
      let jf = 0
      let k: number
      switch (item.op) {
        case 'load':
          code = LD_W_ABS
          k = item.offset
          break
        case 'jump':
          code = item.code
          k = item.k
          jt = offsetTo(item.ifTrue, 255)
          jf = offsetTo(item.ifFalse, 255)
          break
        case 'goto':
          code = JMP_JA
          k = offsetTo(item.to, 0xffffffff)
          break
        case 'return':
          code = RET_K
          k = item.value
          break
      }
      const at = pc * 8
      out.writeUInt16LE(code, at)
      out.writeUInt8(jt, at + 2)
      out.writeUInt8(jf, at + 3)
      out.writeUInt32LE(k >>> 0, at + 4)
      pc++
    }
    return out
  }

  private push(item: Instruction): this {
    this.items.push(item)
    return this
  }
}
