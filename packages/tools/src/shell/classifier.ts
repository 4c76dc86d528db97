import { homedir } from 'node:os'
import { basename, isAbsolute, resolve } from 'node:path'
import { type Item, prepare, splitCommands } from './split.js'

// Recognises commands that destroy data or reach outside the workspace, so the user can be asked
// first. It reads the command the way bash would split it (operators, subshells, substitutions,
// `bash -c` strings) and looks at each simple command's argv. It is a safety net for honest
// mistakes, not a security boundary: the sandbox is that. Anything it cannot resolve (a path
// built from a variable) is given the benefit of the doubt.

export interface ClassifyContext {
  /** The workspace folder; writes below it are fine. */
  workspace: string
  /** Where the command will run, for relative paths; the workspace when unknown. */
  cwd?: string
  /** Other folders whose writes are harmless, such as the sandbox's private /tmp. */
  scratch?: readonly string[]
}

// How deep `bash -c '...'`, `eval` and `$(...)` bodies are followed.
const MAX_DEPTH = 2
const MAX_DISPLAY = 160

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish'])
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{', 'time'])
const SAFE_DEVICES =
  /^\/(dev\/(null|zero|full|stdout|stderr|stdin|tty|fd\/\d+)|proc\/self\/fd\/\d+)$/
const BLOCK_DEVICE =
  /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|loop\d|dm-\d|md\d|sr\d|mapper\/|disk\/)/
// Options that only print information, such as `fdisk -l`.
const INFO_FLAG = /^(-l|--list|-V|--version|-h|--help)$/
// A function that pipes itself into itself. The bounded repeats keep the regex linear on long
// input; real fork bombs are short.
const FORK_BOMB =
  /(?:^|[\s;&|(])(?:function\s+)?([A-Za-z_:][\w:.-]{0,40})\s*(?:\(\s*\))?\s*\{[^}]{0,80}?(?:^|[^\w:.-])\1\s*\|&?\s*\1(?![\w:.-])[^}]{0,80}\}/
const DOWNLOAD_INTO_SHELL = [
  /(?:^|[\s;&|(])(?:(?:ba|z|da|k)?sh|source|\.)\s+(?:-\S+\s+)*<\(\s*(?:curl|wget)\b/,
  /(?:^|[\s;&|(])(?:ba|z|da|k)?sh\s+-c\s+["']?\$\(\s*(?:curl|wget)\b/,
]

interface Wrapper {
  /** Options that take a separate value. */
  values?: string[]
  /** Positional arguments before the wrapped command (timeout's duration). */
  positionals?: number
  /** Options whose value is itself a command line. */
  inner?: string[]
  /** Options that mean no command runs (`command -v`). */
  stops?: string[]
}

// Commands that run another command given in their arguments.
const WRAPPERS: Record<string, Wrapper> = {
  sudo: {
    values: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '-R', '--user', '--group'],
    stops: ['-l', '-v', '-k', '-K', '-V', '--list', '--validate'],
  },
  doas: { values: ['-u', '-C'] },
  env: { values: ['-u', '--unset', '-C', '--chdir'], inner: ['-S', '--split-string'] },
  nice: { values: ['-n', '--adjustment'] },
  nohup: {},
  command: { stops: ['-v', '-V'] },
  builtin: {},
  exec: { values: ['-a'] },
  time: { values: ['-o', '-f', '--output', '--format'] },
  timeout: { values: ['-s', '-k', '--signal', '--kill-after'], positionals: 1 },
  stdbuf: { values: ['-i', '-o', '-e'] },
  ionice: { values: ['-c', '-n', '-p', '-t'] },
  chrt: { positionals: 1 },
  taskset: { positionals: 1 },
  setsid: {},
  unbuffer: {},
  busybox: {},
  flock: { values: ['-w', '-E', '--timeout', '--conflict-exit-code'], positionals: 1 },
  strace: { values: ['-o', '-e', '-p', '-s', '-u'] },
  xargs: {
    values: ['-I', '-n', '-P', '-d', '-L', '-s', '-E', '-a', '--max-args', '--replace'],
  },
}

interface Simple {
  /** The simple command as written, for messages. */
  display: string
  /** Program name without its folder, after wrappers such as sudo. */
  name: string
  args: string[]
  /** Command lines inside arguments: `bash -c`, `eval`, `su -c`, `env -S`. */
  inner: string[]
}

function display(argv: string[]): string {
  let text = ''
  // Stops early: a command line can have thousands of words and only the start is shown.
  for (const word of argv) {
    if (text.length > MAX_DISPLAY) break
    const shown = /^[\w@%+=:,./{}~*?[\]$…-]+$/.test(word)
      ? word
      : `'${word.replaceAll("'", `'\\''`)}'`
    text = text === '' ? shown : `${text} ${shown}`
  }
  return shorten(text)
}

function shorten(text: string): string {
  return text.length > MAX_DISPLAY ? `${text.slice(0, MAX_DISPLAY - 1)}…` : text
}

function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word)
}

function unwrap(argv: string[]): Simple {
  const inner: string[] = []
  const stopped = (): Simple => ({ display: display(argv), name: '', args: [], inner })
  let at = 0
  for (;;) {
    while (at < argv.length && (isAssignment(argv[at]!) || KEYWORDS.has(argv[at]!))) at++
    const name = argv[at] === undefined ? '' : basename(argv[at]!)
    const wrapper = WRAPPERS[name]
    if (!wrapper) return { display: display(argv), name, args: argv.slice(at + 1), inner }
    let i = at + 1
    let positionals = wrapper.positionals ?? 0
    while (i < argv.length) {
      const word = argv[i]!
      if (word === '--') {
        i++
        break
      }
      if (name === 'env' && isAssignment(word)) {
        i++
      } else if (word.startsWith('-') && word.length > 1) {
        if (wrapper.stops?.includes(word)) return stopped()
        if (wrapper.inner?.includes(word)) {
          if (argv[i + 1] !== undefined) inner.push(argv[i + 1]!)
          i += 2
        } else {
          i += wrapper.values?.includes(word) ? 2 : 1
        }
      } else if (positionals > 0) {
        positionals--
        i++
      } else {
        break
      }
    }
    at = i
  }
}

/** Options (before `--`) and operands of a conventional command line. */
function splitArgs(
  args: string[],
  valued: string[] = [],
): { options: string[]; operands: string[] } {
  const options: string[] = []
  const operands: string[] = []
  let i = 0
  for (; i < args.length; i++) {
    const a = args[i]!
    if (a === '--') {
      operands.push(...args.slice(i + 1))
      break
    }
    if (a.startsWith('-') && a.length > 1) {
      options.push(a)
      if (valued.includes(a) && args[i + 1] !== undefined) options.push(args[++i]!)
    } else {
      operands.push(a)
    }
  }
  return { options, operands }
}

/** A short-option cluster (`-rf`) or long option present among `options`. */
function hasFlag(options: string[], short: string, long: string[] = []): boolean {
  return options.some(
    (o) =>
      (short !== '' && /^-[A-Za-z0-9]+$/.test(o) && o.slice(1).includes(short)) ||
      long.some((l) => o === l || o.startsWith(`${l}=`)),
  )
}

class Classifier {
  readonly reasons = new Set<string>()
  private readonly workspace: string
  private readonly scratch: string[]
  private readonly home = homedir()

  constructor(workspace: string, scratch: readonly string[]) {
    this.workspace = resolve(workspace)
    this.scratch = scratch.map((dir) => resolve(dir))
  }

  add(reason: string): void {
    this.reasons.add(reason)
  }

  /** The absolute path a word names, or null when it depends on something unknown. */
  private resolvePath(word: string, cwd: string | null): string | null {
    let path = word
    if (path === '~' || path.startsWith('~/')) path = this.home + path.slice(1)
    else if (path.startsWith('~')) return resolve('/home', path.slice(1))
    path = path.replace(/^\$HOME(?=\/|$)/, this.home)
    const dollar = path.indexOf('$')
    if (dollar >= 0) {
      // Only the literal folder before the variable is known.
      path = path.slice(0, path.lastIndexOf('/', dollar) + 1)
      if (path === '') return null
    }
    if (path === '') return null
    const full = isAbsolute(path) ? resolve(path) : cwd === null ? null : resolve(cwd, path)
    // Longer than PATH_MAX: no real folder, and `cd a; cd a; ...` must not grow without bound.
    return full !== null && full.length > 4096 ? null : full
  }

  private inside(path: string): boolean {
    return [this.workspace, ...this.scratch].some(
      (dir) => path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`),
    )
  }

  /** Flags a write (or delete) of `word` outside the workspace or to a block device. */
  private checkTarget(word: string, cwd: string | null, verb: string, what: string): void {
    const path = this.resolvePath(word, cwd)
    if (path === null || SAFE_DEVICES.test(path)) return
    if (BLOCK_DEVICE.test(path)) this.add(`writes to a block device: ${what}`)
    else if (!this.inside(path)) this.add(`${verb} outside the workspace: ${what}`)
  }

  run(cmd: string, cwd: string | null, depth: number): void {
    const raw = shorten(cmd.trim().replace(/\s+/g, ' '))
    if (FORK_BOMB.test(cmd)) this.add(`fork bomb: ${raw}`)
    for (const pattern of DOWNLOAD_INTO_SHELL) {
      if (pattern.test(cmd)) this.add(`runs a downloaded script: ${raw}`)
    }
    const { text, nested } = prepare(cmd)
    let items: Item[]
    try {
      items = splitCommands(text)
    } catch {
      return
    }
    const stack: (string | null)[] = []
    let here = cwd
    const pipelines = new Map<number, Simple[]>()
    for (const item of items) {
      if (item.kind === 'open') {
        stack.push(here)
        continue
      }
      if (item.kind === 'close') {
        if (stack.length > 0) here = stack.pop() ?? null
        continue
      }
      const simple = unwrap(item.argv)
      for (const { op, target } of item.writes) {
        const what = `${display(item.argv)} ${op} ${display([target])}`.trim()
        this.checkTarget(target, here, 'writes', what)
      }
      if (simple.name === 'cd' || simple.name === 'pushd') here = this.changeDir(simple.args, here)
      this.checkSimple(simple, here, depth)
      const list = pipelines.get(item.pipeline) ?? []
      list.push(simple)
      pipelines.set(item.pipeline, list)
    }
    for (const list of pipelines.values()) this.checkPipeline(list)
    if (depth < MAX_DEPTH) for (const body of nested) this.run(body, here, depth + 1)
  }

  private changeDir(args: string[], cwd: string | null): string | null {
    const { operands } = splitArgs(args)
    const target = operands[0]
    if (target === undefined) return this.home
    if (target === '-') return null
    return this.resolvePath(target, cwd)
  }

  private checkPipeline(list: Simple[]): void {
    const download = list.findIndex((s) => s.name === 'curl' || s.name === 'wget')
    if (download < 0) return
    const shell = list.slice(download + 1).find((s) => SHELLS.has(s.name))
    if (shell) {
      this.add(`runs a downloaded script: ${list[download]!.display} | ${shell.display}`)
    }
  }

  private checkSimple(simple: Simple, cwd: string | null, depth: number): void {
    const { name, args, display: what } = simple
    const inner = [...simple.inner]
    if (name === 'rm') {
      const { options, operands } = splitArgs(args)
      if (hasFlag(options, 'r', ['--recursive']) || hasFlag(options, 'R')) {
        this.add(`recursive delete: ${what}`)
      }
      for (const op of operands) this.checkTarget(op, cwd, 'deletes', what)
    } else if (name === 'mv') {
      const { options, operands } = splitArgs(args, ['-t', '-S', '--target-directory', '--suffix'])
      const target = optionValue(options, '-t', '--target-directory')
      for (const op of target === null ? operands : [...operands, target]) {
        this.checkTarget(op, cwd, 'writes', what)
      }
    } else if (name === 'cp' || name === 'ln' || name === 'install' || name === 'rsync') {
      this.checkCopy(args, cwd, what, name)
    } else if (name === 'tee') {
      for (const op of splitArgs(args).operands) this.checkTarget(op, cwd, 'writes', what)
    } else if (name === 'dd') {
      for (const a of args) {
        if (!a.startsWith('of=')) continue
        const path = this.resolvePath(a.slice(3), cwd)
        if (path !== null && SAFE_DEVICES.test(path)) continue
        if (path !== null && BLOCK_DEVICE.test(path)) this.add(`writes to a block device: ${what}`)
        else this.add(`raw write with dd: ${what}`)
      }
    } else if (/^mkfs(\..+)?$/.test(name) || ['mke2fs', 'mkswap', 'mkdosfs'].includes(name)) {
      this.add(`formats a file system: ${what}`)
    } else if (name === 'shred') {
      this.add(`destroys file contents: ${what}`)
    } else if (name === 'wipefs') {
      this.add(`erases file-system signatures: ${what}`)
    } else if (['fdisk', 'sfdisk', 'cfdisk', 'parted', 'gdisk', 'sgdisk'].includes(name)) {
      const inspects =
        args.some((a) => INFO_FLAG.test(a)) || (name === 'parted' && args.includes('print'))
      if (!inspects) this.add(`edits a disk's partition table: ${what}`)
    } else if (name === 'chmod' || name === 'chown' || name === 'chgrp') {
      if (hasFlag(splitArgs(args).options, 'R', ['--recursive'])) {
        this.add(`recursive permission change: ${what}`)
      }
    } else if (name === 'truncate') {
      this.add(`truncates files: ${what}`)
    } else if (name === 'kill') {
      if (killTargets(args).includes('-1')) this.add(`kills every process: ${what}`)
    } else if (name === 'killall' || name === 'pkill') {
      if (args.length === 0 || !args.every((a) => INFO_FLAG.test(a))) {
        this.add(`kills processes by name: ${what}`)
      }
    } else if (['shutdown', 'reboot', 'halt', 'poweroff'].includes(name)) {
      this.add(`shuts down or reboots the machine: ${what}`)
    } else if ((name === 'init' || name === 'telinit') && /^[06]$/.test(args[0] ?? '')) {
      this.add(`shuts down or reboots the machine: ${what}`)
    } else if (name === 'systemctl') {
      const verbs = ['poweroff', 'reboot', 'halt', 'kexec', 'suspend', 'hibernate', 'rescue']
      if (args.some((a) => verbs.includes(a)))
        this.add(`shuts down or reboots the machine: ${what}`)
    } else if (name === 'git') {
      this.checkGit(args, what)
    } else if (name === 'find') {
      this.checkFind(args, cwd, depth, what)
    } else if (SHELLS.has(name)) {
      const script = shellScript(args)
      if (script !== null) inner.push(script)
    } else if (name === 'eval') {
      inner.push(args.join(' '))
    } else if (name === 'su' || name === 'runuser') {
      const at = args.findIndex((a) => a === '-c' || a === '--command')
      if (at >= 0 && args[at + 1] !== undefined) inner.push(args[at + 1]!)
    }
    if (depth < MAX_DEPTH) for (const line of inner) this.run(line, cwd, depth + 1)
  }

  private checkCopy(args: string[], cwd: string | null, what: string, name: string): void {
    const valued = ['-t', '-S', '--target-directory', '--suffix', '-m', '-o', '-g', '--mode']
    const { options, operands } = splitArgs(args, valued)
    if (name === 'rsync' && options.some((o) => o.startsWith('--delete'))) {
      this.add(`deletes files missing from the source: ${what}`)
    }
    let target = optionValue(options, '-t', '--target-directory')
    if (target === null) {
      if (operands.length >= 2) target = operands[operands.length - 1]!
      // `ln -s path` creates the link in the current folder.
      else if (name === 'ln' && operands.length === 1) target = basename(operands[0]!)
    }
    if (target !== null) this.checkTarget(target, cwd, 'writes', what)
  }

  private checkGit(args: string[], what: string): void {
    // Global options come before the subcommand; some take a value.
    let i = 0
    while (i < args.length && args[i]!.startsWith('-')) {
      i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env'].includes(
        args[i]!,
      )
        ? 2
        : 1
    }
    const sub = args[i]
    const { options, operands } = splitArgs(args.slice(i + 1))
    const dryRun = hasFlag(options, 'n', ['--dry-run'])
    if (sub === 'push') {
      if (dryRun) return
      const force =
        hasFlag(options, 'f', [
          '--force',
          '--force-with-lease',
          '--force-if-includes',
          '--mirror',
        ]) || operands.some((o) => o.startsWith('+'))
      if (force) this.add(`force push: ${what}`)
      if (hasFlag(options, 'd', ['--delete']) || operands.some((o) => o.startsWith(':'))) {
        this.add(`deletes a remote branch: ${what}`)
      }
    } else if (sub === 'reset' && hasFlag(options, '', ['--hard', '--merge'])) {
      this.add(`discards uncommitted changes: ${what}`)
    } else if (sub === 'clean') {
      if (!dryRun && hasFlag(options, 'f', ['--force']))
        this.add(`deletes untracked files: ${what}`)
    } else if (sub === 'checkout') {
      const all = args.slice(i + 1)
      const dash = all.indexOf('--')
      const paths = dash >= 0 ? all.slice(dash + 1) : []
      if (paths.length > 0 || operands.includes('.') || hasFlag(options, 'f', ['--force'])) {
        this.add(`discards local changes: ${what}`)
      }
    } else if (sub === 'restore') {
      const staged = hasFlag(options, 'S', ['--staged'])
      const worktree = hasFlag(options, 'W', ['--worktree'])
      if (!staged || worktree) this.add(`discards local changes: ${what}`)
    } else if (sub === 'branch') {
      if (
        hasFlag(options, 'D') ||
        (hasFlag(options, 'd', ['--delete']) && hasFlag(options, 'f', ['--force']))
      ) {
        this.add(`force-deletes a branch: ${what}`)
      }
    } else if (sub === 'stash' && (operands[0] === 'drop' || operands[0] === 'clear')) {
      this.add(`deletes stashed changes: ${what}`)
    }
  }

  private checkFind(args: string[], cwd: string | null, depth: number, what: string): void {
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!
      if (a === '-delete') this.add(`recursive delete: ${what}`)
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(a)) continue
      let end = i + 1
      while (end < args.length && args[end] !== ';' && args[end] !== '+') end++
      const sub = unwrap(args.slice(i + 1, end))
      if (sub.name === 'rm') this.add(`recursive delete: ${what}`)
      else if (depth < MAX_DEPTH) this.checkSimple({ ...sub, display: what }, cwd, depth + 1)
      i = end
    }
  }
}

function optionValue(options: string[], short: string, long: string): string | null {
  for (let i = 0; i < options.length; i++) {
    const o = options[i]!
    if (o === short || o === long) return options[i + 1] ?? null
    if (o.startsWith(`${long}=`)) return o.slice(long.length + 1)
    if (o.startsWith(short) && o.length > short.length && !o.startsWith('--')) {
      return o.slice(short.length)
    }
  }
  return null
}

/** The pids `kill` is given: its first option is a signal, so `kill -9 -1` targets -1. */
function killTargets(args: string[]): string[] {
  let i = 0
  const first = args[0]
  if (first === '-s' || first === '-n' || first === '--signal') i = 2
  else if (first === '-l' || first === '-L' || first === '--list') return []
  else if (first?.startsWith('-') && first !== '--') i = 1
  if (args[i] === '--') i++
  return args.slice(i)
}

/** The command string of `bash -c '...'` (also `-lc`, `-ec`), or null. */
function shellScript(args: string[]): string | null {
  let command = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-o' || a === '+o' || a === '-O' || a === '+O') {
      i++
    } else if (/^-[A-Za-z]+$/.test(a)) {
      if (a.includes('c')) command = true
    } else if (a.startsWith('--')) {
      if (a === '--') return command ? (args[i + 1] ?? null) : null
    } else {
      return command ? a : null
    }
  }
  return null
}

/** Reasons `cmd` needs the user's approval when run with `ctx.cwd` as its folder. */
export function classify(cmd: string, ctx: ClassifyContext): string[] {
  const classifier = new Classifier(ctx.workspace, ctx.scratch ?? [])
  classifier.run(cmd, resolve(ctx.workspace, ctx.cwd ?? '.'), 0)
  return [...classifier.reasons]
}

/**
 * Why `cmd` is destructive (recursive deletes, force pushes, writes outside `workspace`, ...),
 * as human-readable reasons such as `recursive delete: rm -rf build`; [] when it is not.
 */
export function classifyCommand(cmd: string, workspace: string): string[] {
  return classify(cmd, { workspace })
}
