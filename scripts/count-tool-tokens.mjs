#!/usr/bin/env node
// Prints a markdown table of the input tokens each standard tool definition costs: the JSON of
// name + description + input_schema, in the o200k and cl100k encodings, with and without options.
// Needs the build: `npx tsc -b && node scripts/count-tool-tokens.mjs [version]`.
import { encode as o200k } from 'gpt-tokenizer'
import { encode as cl100k } from 'gpt-tokenizer/encoding/cl100k_base'
import {
  LATEST_SYNTIC_VERSION,
  resolveSynticVersion,
  STANDARD_TOOL_TYPES,
  standardToolDefinition,
} from '../packages/protocol/dist/index.js'

const TYPICAL = {
  syntic_text_editor: { root: '/workspace' },
  syntic_shell: { max_output_chars: 20000 },
  syntic_memory: { root: '/memories' },
}

const resolved = resolveSynticVersion(process.argv[2] ?? LATEST_SYNTIC_VERSION)
if (!resolved.ok) {
  console.error(resolved.error)
  process.exit(1)
}
const { version } = resolved

const rows = []
for (const type of STANDARD_TOOL_TYPES) {
  for (const options of [{}, TYPICAL[type]]) {
    const text = JSON.stringify(standardToolDefinition(type, options, version))
    const label = Object.keys(options).length ? `\`${JSON.stringify(options)}\`` : 'none'
    rows.push(`| \`${type}\` | ${label} | ${o200k(text).length} | ${cl100k(text).length} |`)
  }
}
console.log(`Syntic-Version ${version}\n`)
console.log('| type | options | o200k tokens | cl100k tokens |')
console.log('|---|---|---:|---:|')
console.log(rows.join('\n'))
