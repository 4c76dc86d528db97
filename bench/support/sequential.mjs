// One request at a time over one keep-alive connection: the latency a gateway adds to a single
// call. Each request is timed to its last byte (for a stream, the `[DONE]` event), and checked
// after the clock stops so the check costs no path anything.
import { Client } from 'undici'
import { isExpectedCompletion, isExpectedStream, requestBody } from './chat-fixture.mjs'

/** A keep-alive connection to one path, reused by every sequential request to it. */
export function connect(target) {
  return new Client(target.origin, { pipelining: 1, keepAliveTimeout: 60_000 })
}

/**
 * Sends `count` requests one after another. Resolves with `{ latencies, errors, firstError }`:
 * `latencies` in ms for the correct responses only; `errors` counts the rest.
 */
export async function timeSequential(client, target, stream, count) {
  const body = requestBody(stream)
  const expected = stream ? isExpectedStream : isExpectedCompletion
  const options = { path: target.path, method: 'POST', headers: target.headers, body }
  const latencies = []
  let errors = 0
  let firstError
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    let status
    let text
    try {
      const response = await client.request(options)
      status = response.statusCode
      text = await response.body.text()
    } catch (error) {
      errors++
      firstError ??= error.message
      continue
    }
    const ms = performance.now() - start
    if (status === 200 && expected(text)) {
      latencies.push(ms)
    } else {
      errors++
      firstError ??= `status ${status}: ${text.slice(0, 300)}`
    }
  }
  return { latencies, errors, firstError }
}
