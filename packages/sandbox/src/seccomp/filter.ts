import { BpfProgram } from './bpf.js'

const RET_KILL_PROCESS = 0x80000000
const RET_ERRNO = 0x00050000
const RET_ALLOW = 0x7fff0000
const EPERM = 1
const ENOSYS = 38

const AUDIT_ARCH_X86_64 = 0xc000003e
/** Syscall numbers with this bit set are the x32 ABI, which would bypass a number-based list. */
const X32_SYSCALL_BIT = 0x40000000

/** Offsets in `struct seccomp_data`; an argument's low 32 bits come first (little-endian). */
const NR_OFFSET = 0
const ARCH_OFFSET = 4
const argLow = (index: number) => 16 + 8 * index

/** Every CLONE_NEW* flag: creating namespaces inside the sandbox is an escape route. */
const NAMESPACE_FLAGS =
  0x00000080 | // CLONE_NEWTIME
  0x00020000 | // CLONE_NEWNS
  0x02000000 | // CLONE_NEWCGROUP
  0x04000000 | // CLONE_NEWUTS
  0x08000000 | // CLONE_NEWIPC
  0x10000000 | // CLONE_NEWUSER
  0x20000000 | // CLONE_NEWPID
  0x40000000 // CLONE_NEWNET

/** personality() values that only select the Linux ABI (and query it); anything else, e.g. ADDR_NO_RANDOMIZE, is refused. */
const SAFE_PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff]

const TIOCSTI = 0x5412

/** x86_64 numbers of the syscalls refused outright, with EPERM. */
export const DENIED_SYSCALLS_X86_64: Readonly<Record<string, number>> = Object.freeze({
  ptrace: 101,
  syslog: 103,
  uselib: 134,
  ustat: 136,
  sysfs: 139,
  vhangup: 153,
  pivot_root: 155,
  _sysctl: 156,
  adjtimex: 159,
  chroot: 161,
  acct: 163,
  settimeofday: 164,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  sethostname: 170,
  setdomainname: 171,
  iopl: 172,
  ioperm: 173,
  create_module: 174,
  init_module: 175,
  delete_module: 176,
  get_kernel_syms: 177,
  query_module: 178,
  quotactl: 179,
  nfsservctl: 180,
  lookup_dcookie: 212,
  clock_settime: 227,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  perf_event_open: 298,
  fanotify_init: 300,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  clock_adjtime: 305,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  pidfd_getfd: 438,
  mount_setattr: 442,
  quotactl_fd: 443,
})

/** x86_64 numbers of the syscalls whose arguments decide. */
export const CHECKED_SYSCALLS_X86_64 = Object.freeze({
  ioctl: 16,
  clone: 56,
  personality: 135,
  unshare: 272,
  clone3: 435,
})

/**
 * The sandbox's seccomp filter as classic BPF, for `bwrap --seccomp FD`: kill on a foreign
 * architecture or ABI; EPERM for the escape syscalls, namespace-creating clone/unshare, exotic
 * personalities and terminal injection (TIOCSTI); ENOSYS for clone3, whose flags live in memory a
 * filter cannot read, so that libc falls back to clone; allow the rest.
 */
export function sandboxSeccompFilter(arch: string = process.arch): Buffer {
  if (arch !== 'x64') {
    throw new Error(`the sandbox's seccomp filter supports x86_64 only, not ${arch}`)
  }
  const checked = CHECKED_SYSCALLS_X86_64
  const p = new BpfProgram()
  p.load(ARCH_OFFSET).jumpIfEqual(AUDIT_ARCH_X86_64, null, 'kill')
  p.load(NR_OFFSET).jumpIfAtLeast(X32_SYSCALL_BIT, 'kill')
  for (const nr of Object.values(DENIED_SYSCALLS_X86_64)) p.jumpIfEqual(nr, 'eperm')
  p.jumpIfEqual(checked.clone, 'namespace_flags')
  p.jumpIfEqual(checked.unshare, 'namespace_flags')
  p.jumpIfEqual(checked.clone3, 'enosys')
  p.jumpIfEqual(checked.personality, 'personality')
  p.jumpIfEqual(checked.ioctl, 'ioctl')
  p.ret(RET_ALLOW)

  p.label('namespace_flags').load(argLow(0)).jumpIfAnyBit(NAMESPACE_FLAGS, 'eperm', 'allow')
  p.label('personality').load(argLow(0))
  for (const value of SAFE_PERSONALITIES) p.jumpIfEqual(value, 'allow')
  p.goto('eperm')
  p.label('ioctl').load(argLow(1)).jumpIfEqual(TIOCSTI, 'eperm', 'allow')

  p.label('allow').ret(RET_ALLOW)
  p.label('eperm').ret(RET_ERRNO | EPERM)
  p.label('enosys').ret(RET_ERRNO | ENOSYS)
  p.label('kill').ret(RET_KILL_PROCESS)
  return p.assemble()
}
