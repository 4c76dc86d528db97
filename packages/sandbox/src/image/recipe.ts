import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * How the image is made: debootstrap's suite, mirror, variant and packages, then files removed,
 * folders and files added, and a warm-up command run inside (it fills caches such as
 * matplotlib's font list). A file name ending in `+` appends to the file.
 */
export interface ImageRecipe {
  suite: string
  mirror: string
  variant: string
  include: string[]
  remove: string[]
  directories: string[]
  files: Record<string, string>
  warm: string[]
}

export const RECIPE_PATH = fileURLToPath(new URL('../../recipe/image.json', import.meta.url))

const relativePath = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[\w.+@/-]+$/

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string')
}

export function parseRecipe(text: string): ImageRecipe {
  const value: unknown = JSON.parse(text)
  if (typeof value !== 'object' || value === null) throw new Error('recipe: not an object')
  const r = value as Record<string, unknown>
  for (const key of ['suite', 'mirror', 'variant']) {
    if (typeof r[key] !== 'string' || !/^[\w.:/+-]+$/.test(r[key] as string)) {
      throw new Error(`recipe: ${key} must be a plain string`)
    }
  }
  for (const key of ['include', 'remove', 'directories', 'warm']) {
    if (!isStringArray(r[key])) throw new Error(`recipe: ${key} must be an array of strings`)
  }
  const files = r.files
  if (typeof files !== 'object' || files === null || Array.isArray(files)) {
    throw new Error('recipe: files must be an object')
  }
  if (!Object.values(files).every((v) => typeof v === 'string')) {
    throw new Error('recipe: file contents must be strings')
  }
  const paths = [...(r.remove as string[]), ...(r.directories as string[]), ...Object.keys(files)]
  for (const path of paths) {
    if (!relativePath.test(path)) throw new Error(`recipe: ${path} is not a path inside the image`)
  }
  if (!(r.include as string[]).every((p) => /^[a-z0-9][a-z0-9.+-]*$/.test(p))) {
    throw new Error('recipe: include lists Debian package names')
  }
  return value as ImageRecipe
}

export function readRecipe(path = RECIPE_PATH): { recipe: ImageRecipe; hash: string } {
  const text = readFileSync(path, 'utf8')
  return { recipe: parseRecipe(text), hash: recipeHash(text) }
}

/** The image's cache key: any change to the recipe file builds a new image. */
export function recipeHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16)
}
