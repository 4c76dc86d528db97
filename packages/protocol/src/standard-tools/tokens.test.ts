import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { encode as o200k } from 'gpt-tokenizer'
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import { SYNTIC_VERSIONS } from '../versions.js'
import { standardToolDefinition } from './definitions.js'
import { STANDARD_TOOL_TYPES, type StandardToolOptions, type StandardToolType } from './types.js'

// The spec promises "about 300" input tokens per standard tool. The budget applies to the JSON of
// name + description + input_schema, the same text scripts/count-tool-tokens.mjs reports.
const TOKEN_BUDGET = 320

const TYPICAL: Record<StandardToolType, StandardToolOptions> = {
  syntic_text_editor: { root: '/workspace' },
  syntic_shell: { max_output_chars: 20000 },
  syntic_memory: { root: '/memories' },
}

describe('token budget', () => {
  for (const version of SYNTIC_VERSIONS) {
    for (const type of STANDARD_TOOL_TYPES) {
      for (const [label, options] of [
        ['typical options', TYPICAL[type]],
        ['no options', {}],
      ] as const) {
        it(`${version} ${type} (${label}) fits in ${TOKEN_BUDGET} tokens`, () => {
          const text = JSON.stringify(standardToolDefinition(type, options, version))
          const counts = { o200k: o200k(text).length, cl100k: cl100k(text).length }
          assert.ok(counts.o200k <= TOKEN_BUDGET, `o200k: ${counts.o200k}`)
          assert.ok(counts.cl100k <= TOKEN_BUDGET, `cl100k: ${counts.cl100k}`)
        })
      }
    }
  }
})
