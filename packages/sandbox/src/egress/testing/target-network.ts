import { execFileSync, spawn } from 'node:child_process'
import { join } from 'node:path'
import { TARGETS } from './targets.js'

export interface TargetNetwork {
  /** The targets' request log, as the mirror's `/_log` reports it. */
  served(): Promise<string[]>
  close(): void
}

/**
 * Starts the egress targets (targets.ts) in a second network namespace joined to the caller's by
 * a veth pair, the caller's end at TARGETS.gateway. Meant for a test process already in its own
 * network namespace, so the host's network never sees the link or the 11.0.0.x addresses.
 */
export async function startTargetNetwork(hostLink = 'synegt0'): Promise<TargetNetwork> {
  execFileSync('ip', ['link', 'set', 'lo', 'up'])
  const targets = spawn(
    'unshare',
    ['--net', '--', process.execPath, join(import.meta.dirname, 'targets.js'), 'serve'],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const ready = new Promise<void>((resolve, reject) => {
    targets.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve()
    })
    targets.on('exit', (code) => reject(new Error(`targets exited ${code}`)))
  })
  // unshare execs node in place, so the child's pid names the namespace to move the peer into.
  const pid = String(targets.pid)
  for (let i = 0; ; i++) {
    try {
      execFileSync('ip', [
        'link',
        'add',
        hostLink,
        'type',
        'veth',
        'peer',
        'name',
        TARGETS.link,
        'netns',
        pid,
      ])
      break
    } catch (error) {
      if (i > 50) {
        targets.kill()
        throw error
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  execFileSync('ip', ['addr', 'add', `${TARGETS.gateway}/24`, 'dev', hostLink])
  execFileSync('ip', ['link', 'set', hostLink, 'up'])
  targets.stdin.write('go\n')
  await ready
  return {
    served: async () =>
      (await fetch(`http://${TARGETS.mirror}:8080/_log`).then((r) => r.json())) as string[],
    close: () => {
      targets.stdin.end()
      targets.kill()
    },
  }
}
