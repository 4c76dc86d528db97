#!/usr/bin/env node
// Runs every bench/*.bench.mjs in turn (one at a time: the machine has two cores) and prints
// each result as JSON, then a short table. `npm run bench -- shell` runs the matching ones only.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const filter = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)))
  .sort()

const results = []
for (const file of files) {
  const { run } = await import(pathToFileURL(join(here, file)).href)
  const out = await run()
  for (const result of Array.isArray(out) ? out : [out]) {
    results.push({ file, ...result })
    console.log(JSON.stringify({ file, ...result }))
  }
}

const outDir = join(here, '..', '.bench-out')
mkdirSync(outDir, { recursive: true })
writeFileSync(join(outDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`)

console.log('\n| benchmark | figure | target | met |\n|---|---|---|---|')
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.ratio ?? r.figure ?? ''} | ${r.target} | ${r.pass ? 'yes' : 'no'} |`,
  )
}
