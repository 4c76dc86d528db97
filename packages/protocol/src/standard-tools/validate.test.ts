import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { StandardToolType } from './types.js'
import { checkToolInput } from './validate.js'

type Case = [StandardToolType, Record<string, unknown>]

const VALID: Case[] = [
  ['syntic_text_editor', { command: 'view', path: 'src/app.py' }],
  ['syntic_text_editor', { command: 'view', path: 'src/app.py', range: [1, 20] }],
  ['syntic_text_editor', { command: 'view', path: 'src', range: [10, -1] }],
  ['syntic_text_editor', { command: 'create', path: 'a.txt', content: '' }],
  ['syntic_text_editor', { command: 'replace', path: 'a.txt', old_text: 'x', new_text: 'y' }],
  ['syntic_text_editor', { command: 'insert', path: 'a.txt', after_line: 0, text: 'top\n' }],
  ['syntic_text_editor', { command: 'undo', path: 'a.txt' }],
  ['syntic_shell', { command: 'run', cmd: 'ls -la' }],
  ['syntic_shell', { command: 'run', cmd: 'npm test', timeout_seconds: 300 }],
  ['syntic_shell', { command: 'run', cmd: 'sleep 1', timeout_seconds: 1.5 }],
  ['syntic_shell', { command: 'restart' }],
  ['syntic_memory', { command: 'list' }],
  ['syntic_memory', { command: 'read', path: '/memories/notes.md' }],
  ['syntic_memory', { command: 'write', path: 'notes.md', content: '# Notes\n' }],
  ['syntic_memory', { command: 'edit', path: 'notes.md', old_text: 'a', new_text: 'b' }],
  ['syntic_memory', { command: 'delete', path: 'notes.md' }],
]

// [type, input, what the error must say]
const INVALID: [StandardToolType, unknown, RegExp][] = [
  // Missing arguments.
  ['syntic_text_editor', { command: 'view' }, /view needs the argument "path"/],
  ['syntic_text_editor', { command: 'create', path: 'a' }, /create needs the argument "content"/],
  ['syntic_text_editor', { command: 'create', content: 'x' }, /needs the argument "path"/],
  ['syntic_text_editor', { command: 'replace', path: 'a', old_text: 'x' }, /"new_text"/],
  ['syntic_text_editor', { command: 'replace', path: 'a', new_text: 'x' }, /"old_text"/],
  ['syntic_text_editor', { command: 'insert', path: 'a', text: 'x' }, /"after_line"/],
  ['syntic_text_editor', { command: 'insert', path: 'a', after_line: 1 }, /"text"/],
  ['syntic_text_editor', { command: 'undo' }, /undo needs the argument "path"/],
  ['syntic_shell', { command: 'run' }, /run needs the argument "cmd"/],
  ['syntic_memory', { command: 'read' }, /read needs the argument "path"/],
  ['syntic_memory', { command: 'write', path: 'a' }, /"content"/],
  ['syntic_memory', { command: 'edit', path: 'a', old_text: 'x' }, /"new_text"/],
  ['syntic_memory', { command: 'delete' }, /delete needs the argument "path"/],
  // Wrong types.
  ['syntic_text_editor', { command: 'view', path: 5 }, /"path" must be a string, got a number/],
  ['syntic_text_editor', { command: 'create', path: 'a', content: null }, /got null/],
  ['syntic_text_editor', { command: 'insert', path: 'a', after_line: '3', text: 'x' }, /integer/],
  ['syntic_shell', { command: 'run', cmd: ['ls'] }, /"cmd" must be a string, got an array/],
  ['syntic_shell', { command: 'run', cmd: 'ls', timeout_seconds: '60' }, /must be a number/],
  ['syntic_memory', { command: 'write', path: 'a', content: { text: 'x' } }, /got an object/],
  ['syntic_memory', { command: 'edit', path: 'a', old_text: 1, new_text: 'b' }, /"old_text"/],
  // range must be exactly two integers; after_line an integer.
  ['syntic_text_editor', { command: 'view', path: 'a', range: [1] }, /array of 2 integers/],
  ['syntic_text_editor', { command: 'view', path: 'a', range: [1, 2, 3] }, /array of 2/],
  ['syntic_text_editor', { command: 'view', path: 'a', range: [1.5, 2] }, /array of 2/],
  ['syntic_text_editor', { command: 'view', path: 'a', range: ['1', '2'] }, /array of 2/],
  ['syntic_text_editor', { command: 'view', path: 'a', range: '1-2' }, /got a string/],
  [
    'syntic_text_editor',
    { command: 'insert', path: 'a', after_line: 2.5, text: 'x' },
    /"after_line" must be an integer, got a number \(2\.5\)/,
  ],
  // Unknown arguments, including ones that belong to another command.
  ['syntic_text_editor', { command: 'undo', path: 'a', force: true }, /unknown argument "force"/],
  ['syntic_text_editor', { command: 'view', path: 'a', content: 'x' }, /takes path, range/],
  ['syntic_shell', { command: 'restart', cmd: 'ls' }, /it takes no arguments/],
  ['syntic_memory', { command: 'list', path: '/memories' }, /unknown argument "path" for list/],
  // Unknown or missing command.
  ['syntic_text_editor', { command: 'str_replace', path: 'a' }, /one of view, create, replace/],
  ['syntic_shell', { command: 'exec', cmd: 'ls' }, /one of run, restart; got "exec"/],
  ['syntic_memory', { command: 'view', path: 'a' }, /one of list, read, write, edit, delete/],
  ['syntic_memory', { path: 'a' }, /command must be one of list, read, write, edit, delete/],
  ['syntic_shell', { command: 3 }, /got a number/],
  // Not an object.
  ['syntic_text_editor', null, /must be a JSON object, got null/],
  ['syntic_shell', ['run', 'ls'], /must be a JSON object, got an array/],
  ['syntic_memory', '{"command":"list"}', /must be a JSON object, got a string/],
  ['syntic_shell', 42, /got a number/],
  ['syntic_shell', undefined, /must be a JSON object/],
]

describe('checkToolInput', () => {
  for (const [type, input] of VALID) {
    it(`${type} accepts ${JSON.stringify(input)}`, () => {
      assert.deepEqual(checkToolInput(type, input), { ok: true, value: input })
    })
  }

  it('covers every command of every tool with a valid case', () => {
    const covered = new Set(VALID.map(([type, input]) => `${type}.${input.command}`))
    for (const [type, commands] of Object.entries({
      syntic_text_editor: ['view', 'create', 'replace', 'insert', 'undo'],
      syntic_shell: ['run', 'restart'],
      syntic_memory: ['list', 'read', 'write', 'edit', 'delete'],
    })) {
      for (const command of commands) assert.ok(covered.has(`${type}.${command}`), command)
    }
  })

  for (const [type, input, pattern] of INVALID) {
    it(`${type} refuses ${JSON.stringify(input) ?? 'undefined'}`, () => {
      const result = checkToolInput(type, input)
      assert.equal(result.ok, false)
      if (result.ok) return
      assert.match(result.error, pattern)
    })
  }
})
