import type { StandardToolDefinition, StandardToolOptions } from '../types.js'

// syntic_memory as of API version 2026-11-01. Frozen: the fixtures beside this file pin the exact
// output. A change the model should see goes into a new version folder instead.

export function memory(options: StandardToolOptions): StandardToolDefinition {
  const root = options.root ?? '/memories'
  const example = root === '/' ? '/notes.md' : `${root}/notes.md`
  return {
    name: 'syntic_memory',
    description: [
      `Notes in the folder ${root}, kept between conversations. Paths may be given as \`${example}\` or \`notes.md\`.`,
      'Check memory before starting a task: list, then read what is relevant. Keep notes short and organised: one topic per file, update rather than duplicate. Never store secrets (passwords, API keys, tokens).',
      '- list: the files in the folder.',
      "- read: a file's contents.",
      '- write: creates or overwrites a file.',
      '- edit: `old_text` must appear exactly once.',
      '- delete: removes a file.',
      'Failures return text starting with `Error:`.',
    ].join('\n'),
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: ['list', 'read', 'write', 'edit', 'delete'] },
        path: { type: 'string', description: 'read, write, edit, delete: the file.' },
        content: { type: 'string', description: 'write: the whole file.' },
        old_text: { type: 'string', description: 'edit: the exact text to replace.' },
        new_text: { type: 'string', description: 'edit: the text to put instead.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  }
}
