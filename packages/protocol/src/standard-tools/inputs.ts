import { type Static, Type } from '@sinclair/typebox'

// Each tool's input is a union keyed by `command`; the argument names are the spec's, unchanged.

const path = Type.String({ description: 'Path of the file or folder.' })

export const TextEditorInput = Type.Union([
  Type.Object(
    {
      command: Type.Literal('view'),
      path,
      range: Type.Optional(Type.Tuple([Type.Integer(), Type.Integer()])),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { command: Type.Literal('create'), path, content: Type.String() },
    { additionalProperties: false },
  ),
  Type.Object(
    { command: Type.Literal('replace'), path, old_text: Type.String(), new_text: Type.String() },
    { additionalProperties: false },
  ),
  Type.Object(
    { command: Type.Literal('insert'), path, after_line: Type.Integer(), text: Type.String() },
    { additionalProperties: false },
  ),
  Type.Object({ command: Type.Literal('undo'), path }, { additionalProperties: false }),
])
export type TextEditorInput = Static<typeof TextEditorInput>

export const ShellInput = Type.Union([
  Type.Object(
    {
      command: Type.Literal('run'),
      cmd: Type.String(),
      timeout_seconds: Type.Optional(Type.Number()),
    },
    { additionalProperties: false },
  ),
  Type.Object({ command: Type.Literal('restart') }, { additionalProperties: false }),
])
export type ShellInput = Static<typeof ShellInput>

export const MemoryInput = Type.Union([
  Type.Object({ command: Type.Literal('list') }, { additionalProperties: false }),
  Type.Object({ command: Type.Literal('read'), path }, { additionalProperties: false }),
  Type.Object(
    { command: Type.Literal('write'), path, content: Type.String() },
    { additionalProperties: false },
  ),
  Type.Object(
    { command: Type.Literal('edit'), path, old_text: Type.String(), new_text: Type.String() },
    { additionalProperties: false },
  ),
  Type.Object({ command: Type.Literal('delete'), path }, { additionalProperties: false }),
])
export type MemoryInput = Static<typeof MemoryInput>
