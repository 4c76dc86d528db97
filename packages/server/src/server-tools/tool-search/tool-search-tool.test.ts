import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type ChatCompletionRequest, planToolSearch, type ToolSearchCall } from '@syntic/protocol'
import { ToolSearch } from '@syntic/tool-search'
import { ToolSearchTool } from './tool-search-tool.js'

type Def = { name: string; description: string }

function plan(defs: Def[]) {
  const request = {
    model: 'm',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [
      { type: 'syntic_tool_search' },
      { type: 'function', function: { name: 'always_here', description: 'Loaded tool.' } },
      ...defs.map((d) => ({ type: 'function', defer_loading: true, function: d })),
    ],
  } as unknown as ChatCompletionRequest
  const planned = planToolSearch(request)
  assert.ok(planned)
  return planned
}

const call = (query: string) => ({
  id: 'call_1',
  type: 'function' as const,
  function: { name: 'syntic_tool_search', arguments: JSON.stringify({ query }) },
})

async function search(index: ToolSearch, defs: Def[], query: string, scope?: string) {
  const tool = new ToolSearchTool(
    plan(defs),
    index,
    scope === undefined ? undefined : { org: scope, workspace: 'ws' },
  )
  const outcome = await tool.run(call(query), 'srv_1', { signal: new AbortController().signal })
  return (outcome.record as ToolSearchCall).loaded
}

const catalog: Def[] = [
  { name: 'get_order', description: 'Look up an order by number.' },
  { name: 'create_refund', description: 'Refund an order.' },
]

test('a scoped request finds its catalog again by fingerprint', async () => {
  const index = new ToolSearch()
  assert.deepEqual(await search(index, catalog, 'refund', 'org_1'), ['create_refund'])
  assert.deepEqual(await search(index, catalog, 'refund', 'org_1'), ['create_refund'])
  assert.deepEqual({ hits: index.stats.hits, misses: index.stats.misses }, { hits: 1, misses: 1 })
})

test('a stale index never loads a name the request does not have', async () => {
  const index = new ToolSearch({ checkIntervalMs: 0 })
  assert.deepEqual(await search(index, catalog, 'look number', 'org_1'), ['get_order'])
  // Same lengths, same last letters: the fingerprint matches, the old index ranks `get_order`.
  const renamed: Def[] = [
    { name: 'got_order', description: 'Look up an order by number.' },
    catalog[1]!,
  ]
  assert.deepEqual(await search(index, renamed, 'look number', 'org_1'), [])
  await index.idle()
  assert.equal(index.stats.stale, 1)
  assert.deepEqual(await search(index, renamed, 'look number', 'org_1'), ['got_order'])
  // Another organisation sending the old names is never served the renamed catalog's index.
  assert.deepEqual(await search(index, catalog, 'look number', 'org_2'), ['get_order'])
})
