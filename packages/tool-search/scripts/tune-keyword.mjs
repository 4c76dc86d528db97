#!/usr/bin/env node
// Grid search for keyword mode's field weights, length normalisation, k1 and stemming on the
// development data. Usage: node packages/tool-search/scripts/tune-keyword.mjs [DATA_DIR] [GRID]
// GRID is one of: baseline, stemming, weights, b, k1 (default: all). Prints one JSON line per
// setting with nDCG@10 and R@5 for each set and their mean.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  createTokenizer,
  DEFAULT_KEYWORD_SETTINGS,
  KeywordIndex,
  parseCatalog,
  parseQueries,
  summarize,
} from '../dist/index.js'

const dir = process.argv[2] ?? '/work/shared/bench/tool-search'
const only = process.argv[3]
const docs = parseCatalog(JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8')))
const sets = ['seal_dev', 'bfcl_dev', 'metatool_dev'].map((set) => ({
  set,
  queries: parseQueries(readFileSync(join(dir, `${set}.jsonl`), 'utf8')),
}))

function measure(label, settings) {
  const index = KeywordIndex.build(docs, settings)
  const row = { label }
  let ndcg = 0
  for (const { set, queries } of sets) {
    const report = summarize(
      queries.map((q) => ({ gold: q.gold, results: index.search(q.query, 10).map((h) => h.name) })),
    )
    row[set] = { ndcg10: report['ndcg@10'], r5: report['recall@5'] }
    ndcg += report['ndcg@10']
  }
  row.mean_ndcg10 = Math.round((ndcg / sets.length) * 10_000) / 10_000
  console.log(JSON.stringify(row))
  return row
}

const base = DEFAULT_KEYWORD_SETTINGS
const withFields = (changes) => ({
  ...base,
  fields: Object.fromEntries(
    Object.entries(base.fields).map(([f, s]) => [f, { ...s, ...(changes[f] ?? {}) }]),
  ),
})
const grids = {
  // The README's reference: one flat field, all weights equal, b 0.75, k1 1.2, no stemming.
  baseline: () =>
    measure('plain BM25-like (equal weights, b 0.75, no stemming, no nested)', {
      k1: 1.2,
      tokenizer: createTokenizer({ stemming: 'none' }),
      fields: {
        name: { weight: 1, b: 0.75 },
        description: { weight: 1, b: 0.75 },
        parameterNames: { weight: 1, b: 0.75 },
        parameterDescriptions: { weight: 1, b: 0.75 },
        nested: { weight: 0, b: 0.75 },
      },
    }),
  stemming: () => {
    for (const stemming of ['none', 'plural', 'light']) {
      measure(`stemming ${stemming}`, { ...base, tokenizer: createTokenizer({ stemming }) })
    }
  },
  weights: () => {
    for (const name of [1, 2, 3, 4])
      for (const description of [1, 1.5, 2])
        for (const parameterNames of [0.5, 1])
          for (const parameterDescriptions of [0.25, 0.5, 1])
            measure(
              `weights n${name} d${description} pn${parameterNames} pd${parameterDescriptions}`,
              withFields({
                name: { weight: name },
                description: { weight: description },
                parameterNames: { weight: parameterNames },
                parameterDescriptions: { weight: parameterDescriptions },
              }),
            )
    for (const nested of [0, 0.25, 0.5])
      measure(`nested ${nested}`, withFields({ nested: { weight: nested } }))
  },
  b: () => {
    for (const name of [0, 0.25, 0.5, 0.75, 1])
      for (const description of [0.5, 0.75, 1])
        for (const params of [0.5, 0.75, 1])
          measure(
            `b name ${name} description ${description} params ${params}`,
            withFields({
              name: { b: name },
              description: { b: description },
              parameterNames: { b: params },
              parameterDescriptions: { b: params },
              nested: { b: params },
            }),
          )
  },
  k1: () => {
    for (const k1 of [0.6, 0.9, 1.2, 1.5, 2, 3]) measure(`k1 ${k1}`, { ...base, k1 })
  },
}
for (const [name, grid] of Object.entries(grids)) if (!only || only === name) grid()
