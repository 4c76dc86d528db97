// The `-p` output format, one transcript entry at a time. It is stable: scripts and tests read it.
//
//   > the user's prompt (every line prefixed)
//   the assistant's text, as written
//   [tool ok] shell: npm test          (ok | error | declined)
//   [mod turn-clock] turn 1 took 2.1 s
//   [warning] mod x was stopped: ...
//   [error] the upstream answered 500: ...
import type { TranscriptEntry } from '../session/types.js'

export function formatEntry(entry: TranscriptEntry): string {
  switch (entry.kind) {
    case 'user':
      return entry.text
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n')
    case 'assistant':
      return entry.text
    case 'tool':
      return `[tool ${entry.status}] ${entry.summary}`
    case 'note':
      return `[mod ${entry.mod}] ${entry.text}`
    case 'warning':
      return `[warning] ${entry.text}`
    case 'error':
      return `[error] ${entry.text}`
  }
}

/**
 * How many entries from `start` are final: a running tool is not, nor is the assistant text
 * still streaming (the newest assistant entry while the turn runs and no tool call follows it).
 */
export function finishedCount(
  entries: readonly TranscriptEntry[],
  start: number,
  busy: boolean,
): number {
  let end = start
  for (; end < entries.length; end++) {
    const entry = entries[end]!
    if (entry.kind === 'tool' && entry.status === 'running') break
    if (entry.kind === 'assistant' && busy) {
      const followed = entries
        .slice(end + 1)
        .some((later) => later.kind === 'tool' || later.kind === 'user')
      if (!followed) break
    }
  }
  return end - start
}
