#!/usr/bin/env node
// Semantic mode at 10,000 tools with the embedded word vectors: ranker build time and memory,
// query latency (median, p99) over the development queries. The catalog is the development one
// grown to 10,000 with renamed copies whose description words are rotated (as
// bench/tool-search.bench.mjs does). Reads /work/shared/bench/tool-search (or --data DIR).
// Usage: node packages/tool-search/scripts/bench-semantic.mjs [--data DIR] [--tools N]
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { growCatalog } from '../../../bench/support/grow-catalog.mjs'
import { defaultEmbedder } from '../dist/embedders/default.js'
import { KeywordIndex, parseCatalog, parseQueries } from '../dist/index.js'
import { buildSemanticRanker } from '../dist/semantic/index.js'

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '/work/shared/bench/tool-search' },
    tools: { type: 'string', default: '10000' },
  },
})
const size = Number(values.tools)

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
const round = (x) => Math.round(x * 1000) / 1000

const docs = growCatalog(
  parseCatalog(JSON.parse(readFileSync(join(values.data, 'catalog.json'), 'utf8'))),
  size,
)
const queries = ['seal_dev', 'bfcl_dev', 'metatool_dev'].flatMap((set) =>
  parseQueries(readFileSync(join(values.data, `${set}.jsonl`), 'utf8')).map((q) => q.query),
)
const keyword = KeywordIndex.build(docs)
const embedder = defaultEmbedder()
let started = performance.now()
embedder.vectors()
const vectorsLoadMs = performance.now() - started

const builds = []
let ranker
for (let i = 0; i < 3; i++) {
  started = performance.now()
  ranker = await buildSemanticRanker(docs, keyword, embedder)
  builds.push(performance.now() - started)
}
for (const q of queries.slice(0, 300)) await ranker.search(q, 10)
const times = []
for (const q of queries) {
  const t = performance.now()
  await ranker.search(q, 10)
  times.push(performance.now() - t)
}
times.sort((a, b) => a - b)
console.log(
  JSON.stringify({
    tools: docs.length,
    queries: queries.length,
    loadAverage: loadavg().map((x) => round(x)),
    vectorsLoadMs: round(vectorsLoadMs),
    rankerBuildMs: { first: round(builds[0]), median: round([...builds].sort((a, b) => a - b)[1]) },
    rankerBytes: ranker.bytes,
    keywordIndexBytes: keyword.bytes,
    queryMs: {
      median: round(quantile(times, 0.5)),
      p90: round(quantile(times, 0.9)),
      p99: round(quantile(times, 0.99)),
    },
  }),
)
