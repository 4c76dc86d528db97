import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { appendFile, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type ImageRecipe, RECIPE_PATH, readRecipe } from './recipe.js'

/** Built images, one folder per recipe hash; gitignored. `SYNTIC_SANDBOX_IMAGE_DIR` moves it. */
export function defaultImageCacheDir(): string {
  return (
    process.env.SYNTIC_SANDBOX_IMAGE_DIR ??
    fileURLToPath(new URL('../../.cache/image', import.meta.url))
  )
}

/** Written last: an image folder without it is not an image. */
const COMPLETE_MARKER = 'complete.json'

export interface ImageLocation {
  hash: string
  /** The folder for this recipe; the root filesystem is its `rootfs`. */
  dir: string
  rootfs: string
}

export function imageLocation(
  cacheDir = defaultImageCacheDir(),
  recipePath = RECIPE_PATH,
): ImageLocation {
  const { hash } = readRecipe(recipePath)
  const dir = join(cacheDir, hash)
  return { hash, dir, rootfs: join(dir, 'rootfs') }
}

/** The built image's root filesystem for the current recipe, or null when it is missing. */
export function findImage(
  cacheDir = defaultImageCacheDir(),
  recipePath = RECIPE_PATH,
): string | null {
  const location = imageLocation(cacheDir, recipePath)
  return existsSync(join(location.dir, COMPLETE_MARKER)) ? location.rootfs : null
}

export class ImageMissingError extends Error {
  constructor(cacheDir: string) {
    super(
      `the sandbox image is not built (looked in ${cacheDir}): run \`npx syntic sandbox build-image\` as root`,
    )
    this.name = 'ImageMissingError'
  }
}

export function requireImage(cacheDir = defaultImageCacheDir()): string {
  const rootfs = findImage(cacheDir)
  if (!rootfs) throw new ImageMissingError(cacheDir)
  return rootfs
}

export interface BuildOptions {
  cacheDir?: string
  recipePath?: string
  /** Build again even when the image for this recipe exists. */
  force?: boolean
  onProgress?: (line: string) => void
}

export interface BuildResult {
  rootfs: string
  /** False when the cached image was used. */
  built: boolean
  durationMs: number
  bytes: number
}

/**
 * Builds the image with debootstrap into a temporary folder beside the cache, then renames it into
 * place, so a crash or a concurrent build never leaves a half image under the recipe's hash.
 */
export async function buildImage(options: BuildOptions = {}): Promise<BuildResult> {
  const cacheDir = options.cacheDir ?? defaultImageCacheDir()
  const recipePath = options.recipePath ?? RECIPE_PATH
  const progress = options.onProgress ?? (() => undefined)
  const started = Date.now()
  const location = imageLocation(cacheDir, recipePath)
  const existing = findImage(cacheDir, recipePath)
  if (existing && !options.force) {
    return { rootfs: existing, built: false, durationMs: 0, bytes: await diskUsage(location.dir) }
  }
  if (process.getuid?.() !== 0)
    throw new Error('building the sandbox image needs root (debootstrap)')
  const { recipe } = readRecipe(recipePath)
  await mkdir(cacheDir, { recursive: true })
  const temp = join(cacheDir, `.build-${location.hash}-${process.pid}-${Date.now()}`)
  const rootfs = join(temp, 'rootfs')
  try {
    await mkdir(temp)
    progress(`debootstrap ${recipe.suite} (${recipe.variant}) from ${recipe.mirror}`)
    await debootstrap(recipe, rootfs, progress, started)
    progress('finishing: removing caches and docs, adding files, warming caches')
    await finish(recipe, rootfs)
    const bytes = await diskUsage(rootfs)
    await writeFile(
      join(temp, COMPLETE_MARKER),
      `${JSON.stringify({ hash: location.hash, recipe, builtAt: new Date().toISOString(), bytes })}\n`,
    )
    if (existsSync(location.dir)) await rm(location.dir, { recursive: true, force: true })
    await rename(temp, location.dir)
    await removeStale(cacheDir, location.hash)
    const durationMs = Date.now() - started
    progress(
      `image ready: ${location.rootfs} (${formatBytes(bytes)}, ${Math.round(durationMs / 1000)} s)`,
    )
    return { rootfs: location.rootfs, built: true, durationMs, bytes }
  } finally {
    await rm(temp, { recursive: true, force: true })
  }
}

function debootstrap(
  recipe: ImageRecipe,
  rootfs: string,
  progress: (line: string) => void,
  started: number,
): Promise<void> {
  const args = [
    `--variant=${recipe.variant}`,
    `--include=${recipe.include.join(',')}`,
    recipe.suite,
    rootfs,
    recipe.mirror,
  ]
  return new Promise((resolve, reject) => {
    const child = spawn('debootstrap', args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` },
    })
    let tail = ''
    const onData = (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-4096)
      for (const line of chunk.toString('utf8').split('\n')) {
        const trimmed = line.trim()
        if (trimmed) progress(`[${Math.round((Date.now() - started) / 1000)} s] ${trimmed}`)
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('error', (error) =>
      reject(new Error(`cannot run debootstrap (apt-get install debootstrap): ${error.message}`)),
    )
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`debootstrap exited with ${code}:\n${tail}`)),
    )
  })
}

async function finish(recipe: ImageRecipe, rootfs: string): Promise<void> {
  for (const path of recipe.remove) await rm(join(rootfs, path), { recursive: true, force: true })
  for (const path of recipe.directories) await mkdir(join(rootfs, path), { recursive: true })
  for (const [name, content] of Object.entries(recipe.files)) {
    const append = name.endsWith('+')
    const path = join(rootfs, append ? name.slice(0, -1) : name)
    await mkdir(dirname(path), { recursive: true })
    if (append) await appendFile(path, content)
    else await writeFile(path, content)
  }
  if (recipe.warm.length > 0) await run('chroot', [rootfs, ...recipe.warm])
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4096)
    })
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}: ${stderr}`)),
    )
  })
}

async function removeStale(cacheDir: string, keep: string): Promise<void> {
  for (const entry of await readdir(cacheDir)) {
    if (entry !== keep && /^[0-9a-f]{16}$/.test(entry)) {
      await rm(join(cacheDir, entry), { recursive: true, force: true })
    }
  }
}

async function diskUsage(path: string): Promise<number> {
  let total = 0
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name)
      if (entry.isDirectory()) await walk(full)
      else if (entry.isFile()) total += (await stat(full)).size
    }
  }
  await walk(path)
  return total
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(2)} GiB`
    : `${(bytes / 1024 ** 2).toFixed(1)} MiB`
}
