import type { StandardToolDefinition, StandardToolOptions } from '../types.js'

// syntic_shell as of API version 2026-11-01. Frozen: the fixtures beside this file pin the exact
// output. A change the model should see goes into a new version folder instead.

/** 20000 -> "20,000", the same on every machine (no locale data involved). */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

function truncation(maxOutputChars: number | undefined): string {
  if (maxOutputChars === undefined) return 'Long output keeps its head and tail.'
  return `Output longer than ${grouped(maxOutputChars)} characters is cut in the middle, keeping head and tail.`
}

export function shell(options: StandardToolOptions): StandardToolDefinition {
  return {
    name: 'syntic_shell',
    description: [
      'Runs commands in a persistent shell session: the working folder, environment variables and other state carry over between calls. stdin is empty, so interactive prompts fail; use flags such as -y.',
      `- run: runs \`cmd\`; returns its combined stdout and stderr, then a line \`[exit code: N]\`. ${truncation(options.max_output_chars)} Set \`timeout_seconds\` for commands that take long.`,
      '- restart: starts a fresh session (after a hang, or to reset state).',
      'Failures return text starting with `Error:`.',
    ].join('\n'),
    input_schema: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: ['run', 'restart'] },
        cmd: { type: 'string', description: 'run: the command line.' },
        timeout_seconds: {
          type: 'number',
          description: 'run, optional: seconds before the command is stopped.',
        },
      },
      required: ['command'],
      additionalProperties: false,
    },
  }
}
