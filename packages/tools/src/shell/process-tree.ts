import { readdirSync, readFileSync } from 'node:fs'

// Killing a session must take everything it started with it. A process group is not enough:
// `setsid` leaves the group, and a double fork reparents the process to init, out of the tree.
// So every process of a session carries an environment variable with a random token, inherited
// through fork and exec, and we look for it in /proc/<pid>/environ (the same trick Jenkins uses
// to reap build processes). The process group and the parent links are checked as well.

/** The variable that tags a session's processes. */
export const SESSION_TAG = 'SYNTIC_SHELL_SESSION'

function safeKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // Already gone, or never ours to kill.
  }
}

interface ProcInfo {
  pid: number
  ppid: number
  pgid: number
}

function readStat(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    // The command name is in parentheses and may contain spaces or ')'; fields follow the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (fields[0] === 'Z') return null
    return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]) }
  } catch {
    return null
  }
}

function hasTag(pid: number, needle: Buffer): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(needle)
  } catch {
    return false
  }
}

/**
 * Every live process of a session: tagged with `token`, in the process group of `rootPid`, or a
 * descendant of either. Pass `rootPid` only while that child is unreaped; once reaped its number
 * may belong to someone else.
 */
export function findSessionProcesses(token: string, rootPid?: number): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const needle = Buffer.from(`${SESSION_TAG}=${token}\0`)
  const infos: ProcInfo[] = []
  for (const name of entries) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue
    const info = readStat(pid)
    if (info) infos.push(info)
  }
  const found = new Set<number>()
  for (const info of infos) {
    const inGroup = rootPid !== undefined && (info.pid === rootPid || info.pgid === rootPid)
    if (inGroup || hasTag(info.pid, needle)) {
      found.add(info.pid)
    }
  }
  // Descendants by parent link, for anything that cleared its environment.
  let grew = true
  while (grew) {
    grew = false
    for (const info of infos) {
      if (!found.has(info.pid) && found.has(info.ppid)) {
        found.add(info.pid)
        grew = true
      }
    }
  }
  return [...found]
}

/**
 * SIGKILLs a session's whole process tree, synchronously so it also works in an 'exit' handler.
 * A few rounds catch children forked while we were killing their parents.
 */
export function killSessionTree(token: string, rootPid?: number): void {
  if (rootPid !== undefined) {
    safeKill(-rootPid, 'SIGKILL')
    safeKill(rootPid, 'SIGKILL')
  }
  for (let round = 0; round < 8; round++) {
    const victims = findSessionProcesses(token, rootPid)
    if (victims.length === 0) return
    for (const pid of victims) safeKill(pid, 'SIGKILL')
  }
}
