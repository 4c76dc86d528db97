#!/usr/bin/env node
// One cold index build in a fresh process: `node cold-build.mjs syntic|minisearch|orama DATA SIZE`
// loads the catalog, grows it to SIZE tools, builds once and prints {"ms": ...}. Run many times
// by the tool-search benchmark, so that "cold" means a process that has never run the code.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { KeywordIndex, parseCatalog } from '../../packages/tool-search/dist/index.js'
import { requestCatalog } from './grow-catalog.mjs'
import { buildMiniSearch, buildOrama } from './search-peers.mjs'

const [engine, data, size] = process.argv.slice(2)
const builders = {
  syntic: (docs) => KeywordIndex.build(docs),
  minisearch: buildMiniSearch,
  orama: buildOrama,
}
const build = builders[engine]
if (build === undefined || data === undefined || !(Number(size) > 0)) {
  console.error('usage: cold-build.mjs syntic|minisearch|orama DATA SIZE')
  process.exit(2)
}
const docs = requestCatalog(
  parseCatalog(JSON.parse(readFileSync(join(data, 'catalog.json'), 'utf8'))),
  Number(size),
)
const start = performance.now()
await build(docs)
console.log(JSON.stringify({ ms: performance.now() - start }))
