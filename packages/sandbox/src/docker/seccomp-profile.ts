import { DENIED_SYSCALLS_X86_64 } from '../seccomp/filter.js'

const EPERM = 1
const ENOSYS = 38

/** The CLONE_NEW* flags, one rule each: OCI profiles can only test `(arg & mask) == value`. */
const NAMESPACE_FLAGS = [
  0x00000080, 0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
]
/** personality() bits that weaken the address space (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, ...). */
const UNSAFE_PERSONALITY_BITS = [0x0040000, 0x0400000, 0x0200000, 0x0100000, 0x1000000]
const TIOCSTI = 0x5412

interface SeccompArg {
  index: number
  value: number
  valueTwo: number
  op: 'SCMP_CMP_MASKED_EQ' | 'SCMP_CMP_EQ'
}

interface SeccompRule {
  names: string[]
  action: 'SCMP_ACT_ERRNO'
  errnoRet: number
  args?: SeccompArg[]
}

export interface SeccompProfile {
  defaultAction: 'SCMP_ACT_ALLOW'
  architectures: string[]
  syscalls: SeccompRule[]
}

const maskedBit = (index: number, bit: number): SeccompArg[] => [
  { index, value: bit, valueTwo: bit, op: 'SCMP_CMP_MASKED_EQ' },
]

/**
 * The local driver's seccomp filter as a Docker/OCI profile: the same syscalls refused with EPERM,
 * namespace-creating clone/unshare refused, clone3 answered ENOSYS so libc falls back to clone,
 * terminal injection refused; x86_64 only, so foreign ABIs hit the runtime's bad-arch action. The
 * one difference: personality() is refused when an unsafe bit is set (so is the 0xffffffff query)
 * rather than allowed for a list of values.
 */
export function dockerSeccompProfile(): SeccompProfile {
  const syscalls: SeccompRule[] = [
    { names: Object.keys(DENIED_SYSCALLS_X86_64), action: 'SCMP_ACT_ERRNO', errnoRet: EPERM },
    { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
    {
      names: ['ioctl'],
      action: 'SCMP_ACT_ERRNO',
      errnoRet: EPERM,
      args: [{ index: 1, value: TIOCSTI, valueTwo: 0, op: 'SCMP_CMP_EQ' }],
    },
  ]
  for (const flag of NAMESPACE_FLAGS) {
    for (const [name, index] of [
      ['clone', 0],
      ['unshare', 0],
    ] as const) {
      syscalls.push({
        names: [name],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: EPERM,
        args: maskedBit(index, flag),
      })
    }
  }
  for (const bit of UNSAFE_PERSONALITY_BITS) {
    syscalls.push({
      names: ['personality'],
      action: 'SCMP_ACT_ERRNO',
      errnoRet: EPERM,
      args: maskedBit(0, bit),
    })
  }
  return { defaultAction: 'SCMP_ACT_ALLOW', architectures: ['SCMP_ARCH_X86_64'], syscalls }
}
