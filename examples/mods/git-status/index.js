// @ts-check
// git-status: the project's branch and changed-file count in the status line, refreshed when a
// turn or a tool call ends. The mod runs in its own folder, so it learns the project's folder
// from `session.start` or, when started mid-session, from `session.state`.
import { execFile } from 'node:child_process'
import { createMod } from '@syntic/mod-sdk'

const GIT_TIMEOUT_MS = 3000

/** @type {string | undefined} */
let cwd
let refreshing = false
let again = false

/** @param {string} output */
function summary(output) {
  const lines = output.split('\n').filter((line) => line !== '')
  const head = lines[0]?.startsWith('## ') ? lines.shift()?.slice(3) : undefined
  const branch = head?.split('...')[0]?.replace(/^No commits yet on /, '') ?? '?'
  const changed = lines.length
  return `git: ${branch} · ${changed === 0 ? 'clean' : `${changed} changed`}`
}

function refresh() {
  if (!cwd) return
  if (refreshing) {
    again = true
    return
  }
  refreshing = true
  execFile(
    'git',
    ['-C', cwd, 'status', '--porcelain=v1', '--branch'],
    { timeout: GIT_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 },
    (error, stdout) => {
      refreshing = false
      mod.draw('status', error ? 'git: not a repository' : summary(stdout))
      if (again) {
        again = false
        refresh()
      }
    },
  )
}

const mod = createMod({
  async onHello() {
    if (!mod.granted('session.read')) return
    try {
      cwd = (await mod.state()).cwd
      refresh()
    } catch {
      // Not available yet: session.start will say where the project is.
    }
  },
})

mod.onEvent('session.start', (data) => {
  cwd = data.cwd
  refresh()
})
mod.onEvent('turn.end', refresh)
mod.onEvent('tool.end', refresh)
