#!/usr/bin/env node
// Prints R@1/5/10 and nDCG@10 per development set for keyword and semantic mode, the ranker's
// build time and the median query time. Reads /work/shared/bench/tool-search (or --data DIR).
// Try another configuration with --set key=value (names from src/semantic/settings.ts; nested
// ones dotted: --set feedback.tools=0).
// Usage: node packages/tool-search/scripts/tune-semantic.mjs [--data DIR] [--set k=v ...]
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { defaultEmbedder } from '../dist/embedders/default.js'
import { KeywordIndex, parseCatalog, parseQueries, summarize } from '../dist/index.js'
import { buildSemanticRanker } from '../dist/semantic/index.js'
import { SEMANTIC_SETTINGS } from '../dist/semantic/settings.js'

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '/work/shared/bench/tool-search' },
    set: { type: 'string', multiple: true, default: [] },
  },
})
for (const pair of values.set) {
  const [path, value] = pair.split('=')
  const keys = path.split('.')
  const last = keys.pop()
  const owner = keys.reduce((object, key) => object?.[key], SEMANTIC_SETTINGS)
  if (owner === undefined || !(last in owner)) throw new Error(`unknown setting ${path}`)
  owner[last] = Number(value)
}

const docs = parseCatalog(JSON.parse(readFileSync(join(values.data, 'catalog.json'), 'utf8')))
const keyword = KeywordIndex.build(docs)
const embedder = defaultEmbedder()
let started = performance.now()
embedder.vectors()
const loadMs = performance.now() - started
started = performance.now()
const semantic = await buildSemanticRanker(docs, keyword, embedder)
const buildMs = performance.now() - started

const times = []
const rows = []
for (const set of ['seal_dev', 'bfcl_dev', 'metatool_dev']) {
  const queries = parseQueries(readFileSync(join(values.data, `${set}.jsonl`), 'utf8'))
  const keywordRuns = []
  const semanticRuns = []
  for (const { query, gold } of queries) {
    keywordRuns.push({ gold, results: keyword.search(query, 10).map((h) => h.name) })
    const t = performance.now()
    const hits = await semantic.search(query, 10)
    times.push(performance.now() - t)
    semanticRuns.push({ gold, results: hits.map((h) => h.name) })
  }
  rows.push({ set, mode: 'keyword', ...summarize(keywordRuns) })
  rows.push({ set, mode: 'semantic', ...summarize(semanticRuns) })
}
times.sort((a, b) => a - b)
console.table(rows)
console.log(
  JSON.stringify({
    tools: docs.length,
    vectorsLoadMs: Math.round(loadMs),
    rankerBuildMs: Math.round(buildMs),
    rankerBytes: semantic.bytes,
    queryMedianMs: Number(times[times.length >> 1].toFixed(3)),
    settings: SEMANTIC_SETTINGS,
  }),
)
