import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { MAX_SSE_LINE_CHARS } from '../upstream/limits.js'
import type { SseEvent } from '../upstream/port.js'
import { SseParser } from '../upstream/sse-parser.js'
import type { ScriptedReply } from './scripted-upstream.js'

// Fixtures are data, not compiled: from dist/testing or src/testing alike, two levels up is the
// package root.
const FIXTURES = fileURLToPath(new URL('../../src/testing/fixtures/', import.meta.url))

/**
 * Recorded upstream responses shipped with the project, by name: `<name>.json` is a non-streamed
 * body, `<name>.<status>.json` an error body answered with that status, and `<name>.sse` a raw
 * event stream as a server sends it (its `data: [DONE]` is dropped: the scripted upstream sends it
 * again on the chat completions path).
 */
export function loadFixture(name: string): ScriptedReply {
  const file = fixtureFiles().find((candidate) => candidate.split('.')[0] === name)
  if (file === undefined) {
    throw new Error(
      `no fixture named ${JSON.stringify(name)}; there are ${fixtureNames().join(', ')}`,
    )
  }
  const text = readFileSync(FIXTURES + file, 'utf8')
  if (file.endsWith('.sse')) return { sse: parseEventStream(text) }
  const status = Number(file.split('.')[1])
  const json: unknown = JSON.parse(text)
  return Number.isInteger(status) ? { status, json } : { json }
}

/** The names `loadFixture` accepts. */
export function fixtureNames(): string[] {
  return fixtureFiles().map((file) => file.split('.')[0]!)
}

/** The raw text of a fixture file, for tests that compare what was replayed with the recording. */
export function fixtureText(name: string): string {
  const file = fixtureFiles().find((candidate) => candidate.split('.')[0] === name)
  if (file === undefined) throw new Error(`no fixture named ${JSON.stringify(name)}`)
  return readFileSync(FIXTURES + file, 'utf8')
}

function fixtureFiles(): string[] {
  return readdirSync(FIXTURES)
    .filter((file) => file.endsWith('.json') || file.endsWith('.sse'))
    .sort()
}

function parseEventStream(text: string): SseEvent[] {
  const parser = new SseParser(MAX_SSE_LINE_CHARS)
  const events: SseEvent[] = []
  parser.feed(text, events)
  parser.end(events)
  return events.filter((event) => event.data !== '[DONE]')
}
