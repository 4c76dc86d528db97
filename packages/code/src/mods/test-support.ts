// Helpers for the mod host's tests: temporary homes and projects, mods written to disk, waiting.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SessionState } from '../session/types.js'

export interface Sandbox {
  home: string
  project: string
  cleanup(): void
}

export function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'syntic-mods-'))
  const home = join(root, 'home')
  const project = join(root, 'project')
  mkdirSync(home)
  mkdirSync(project)
  return { home, project, cleanup: () => rmSync(root, { recursive: true, force: true }) }
}

/** Write `<base>/.syntic/mods/<name>/` with a mod.json and the given files (`run.sh` is made executable). */
export function writeMod(
  base: string,
  name: string,
  manifest: Record<string, unknown>,
  files: Record<string, string> = {},
): string {
  const dir = join(base, '.syntic', 'mods', name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, 'mod.json'),
    JSON.stringify({ name, description: `test ${name}`, ...manifest }),
  )
  for (const [file, body] of Object.entries(files)) {
    writeFileSync(join(dir, file), body)
    if (file.endsWith('.sh')) chmodSync(join(dir, file), 0o755)
  }
  return dir
}

export async function waitFor(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const until = Date.now() + limitMs
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((done) => setTimeout(done, 10))
  }
}

export const STATE: SessionState = {
  session_id: 'sess_1',
  model: 'amara-1',
  permission_mode: 'default',
  turns: 4,
  busy: false,
  cwd: '/home/sam/src/shop',
}

export const grantAll = async (_mod: unknown, wanted: string[]): Promise<string[]> => wanted
