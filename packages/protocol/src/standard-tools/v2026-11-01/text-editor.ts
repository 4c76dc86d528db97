import type { StandardToolDefinition, StandardToolOptions } from '../types.js'

// syntic_text_editor as of API version 2026-11-01. Frozen: the fixtures beside this file pin the
// exact output. A change the model should see goes into a new version folder instead.

function where(root: string | undefined): string {
  if (root === undefined) return 'Paths are relative to the workspace top folder.'
  return `All paths are under ${root}.`
}

export function textEditor(options: StandardToolOptions): StandardToolDefinition {
  return {
    name: 'syntic_text_editor',
    description: [
      where(options.root),
      '- view: a file as `cat -n` shows it (line number right-aligned in 6 columns, tab, line); a folder two levels deep, folders ending in `/`, hidden entries left out.',
      '- create: fails if the file exists.',
      '- replace: `old_text` must appear exactly once; include enough context to make it unique.',
      '- insert: adds `text` after `after_line`.',
      '- undo: reverts the last change to that file.',
      'Failures return text starting with `Error:`.',
    ].join('\n'),
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: ['view', 'create', 'replace', 'insert', 'undo'] },
        path: { type: 'string', description: 'All commands: file or folder path.' },
        range: {
          type: 'array',
          items: { type: 'integer' },
          description:
            'view, optional: [start, end], 1-based inclusive; end -1 means the last line.',
        },
        content: { type: 'string', description: 'create: the file text.' },
        old_text: { type: 'string', description: 'replace: exact text to find.' },
        new_text: { type: 'string', description: 'replace: new text.' },
        after_line: { type: 'integer', description: 'insert: line number, 0 for the top.' },
        text: { type: 'string', description: 'insert: text to add.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
  }
}
