import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DockerApiError, type DockerEngine } from './engine.js'

export const IMAGE_REPOSITORY = 'syntic-sandbox'
/** The in-sandbox kernel and its helpers, the folder the local driver mounts. */
export const AGENT_DIR = fileURLToPath(new URL('../../agent', import.meta.url))

/** The agent's top-level files, sorted: what gets baked into the image. */
function agentFiles(agentDir: string): string[] {
  return readdirSync(agentDir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort()
}

/**
 * The image's tag: the recipe hash (the name of the rootfs's folder in the image cache) and the
 * kernel's hash, since kernel.py is baked into the image (the root is read-only, so it cannot be
 * copied in later and a bind mount would not reach a remote host).
 */
export function imageTag(rootfs: string, agentDir: string): string {
  const recipe =
    basename(dirname(rootfs))
      .replace(/[^\w.-]/g, '')
      .slice(0, 40) || 'custom'
  const hash = createHash('sha256')
  for (const name of agentFiles(agentDir))
    hash.update(`${name}\0`).update(readFileSync(`${agentDir}/${name}`))
  const kernel = hash.digest('hex').slice(0, 12)
  return `${IMAGE_REPOSITORY}:${recipe}-${kernel}`
}

/**
 * Makes the image exist on the daemon, importing the built rootfs once (no registry needed): a tar
 * stream of the rootfs plus the agent's files in /opt/syntic/kernel, written by GNU tar so
 * every file type, owner and mode survives.
 */
export async function ensureImage(
  engine: DockerEngine,
  rootfs: string,
  agentDir: string,
): Promise<string> {
  const ref = imageTag(rootfs, agentDir)
  const agent = basename(agentDir)
  if (await imageExists(engine, ref)) return ref
  const tar = spawn(
    'tar',
    [
      '-c',
      '--numeric-owner',
      '-C',
      rootfs,
      '.',
      '-C',
      dirname(agentDir),
      '--transform',
      `s,^\\./${agent.replace(/\W/g, '\\$&')}/,./opt/syntic/kernel/,`,
      ...agentFiles(agentDir).map((name) => `./${agent}/${name}`),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let tarError = ''
  tar.stderr.on('data', (chunk: Buffer) => {
    tarError = (tarError + chunk.toString()).slice(-2000)
  })
  const tarExit = new Promise<number>((resolve) =>
    tar.on('close', (code) => {
      // A failed tar must abort the upload: a cleanly ended short stream would import a partial image.
      if (code !== 0) tar.stdout.destroy(new Error('tar failed'))
      resolve(code ?? 1)
    }),
  )
  const [repo, tag] = ref.split(':') as [string, string]
  const upload = engine
    .upload(
      'POST',
      `/images/create?fromSrc=-&repo=${encodeURIComponent(repo)}&tag=${encodeURIComponent(tag)}`,
      'application/x-tar',
      tar.stdout,
    )
    .catch((error: Error) => error)
  const [tarCode, response] = await Promise.all([tarExit, upload])
  if (tarCode !== 0) throw new Error(`tar of ${rootfs} failed: ${tarError.trim()}`)
  if (response instanceof Error) throw response
  // Import reports failures inside a 200 progress stream.
  const messages = response.body
    .toString('utf8')
    .split('\n')
    .map((line) => {
      try {
        return JSON.parse(line) as { error?: unknown; id?: unknown; status?: unknown }
      } catch {
        return {}
      }
    })
  const failure = messages.find((m) => typeof m.error === 'string')?.error
  if (failure) throw new Error(`importing the sandbox image failed: ${String(failure)}`)
  if (!(await imageExists(engine, ref))) {
    // Podman 4 ignores the tag of an import and names it `latest`: tag it by its id instead.
    const id = messages
      .flatMap((m) => [m.id, m.status])
      .find((v): v is string => typeof v === 'string' && /^sha256:[0-9a-f]{64}$/.test(v))
    if (!id) throw new Error(`the daemon accepted the image import but has no ${ref}`)
    await engine.call(
      'POST',
      `/images/${id}/tag?repo=${encodeURIComponent(repo)}&tag=${encodeURIComponent(tag)}`,
    )
    const latest = await engine
      .json<{ Id?: string }>('GET', `/images/${encodeURIComponent(repo)}:latest/json`)
      .catch(() => ({}) as { Id?: string })
    if (latest.Id === id) {
      await engine
        .call('DELETE', `/images/${encodeURIComponent(repo)}:latest`)
        .catch(() => undefined)
    }
  }
  return ref
}

async function imageExists(engine: DockerEngine, ref: string): Promise<boolean> {
  try {
    await engine.call('GET', `/images/${encodeURIComponent(ref)}/json`)
    return true
  } catch (error) {
    if (error instanceof DockerApiError && error.status === 404) return false
    throw error
  }
}
