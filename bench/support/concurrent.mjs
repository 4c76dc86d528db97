// Many connections at once with autocannon: the throughput a gateway sustains. Every response is
// checked (status and answer): only correct ones count towards requests/s, the rest are errors.
import autocannon from 'autocannon'
import { isExpectedCompletion, isExpectedStream, requestBody } from './chat-fixture.mjs'

function load(target, stream, connections, seconds) {
  const expected = stream ? isExpectedStream : isExpectedCompletion
  const tally = { correct: 0 }
  const running = autocannon({
    url: `${target.origin}${target.path}`,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: target.path,
        headers: target.headers,
        body: requestBody(stream),
        onResponse(status, body) {
          if (status === 200 && expected(body)) tally.correct++
        },
      },
    ],
  })
  return running.then((result) => ({ result, correct: tally.correct }))
}

/**
 * Loads one path with `connections` connections for `seconds` after `warmupSeconds` of the same
 * load. Resolves with requests/s (correct responses only), latency percentiles in ms (autocannon
 * records whole milliseconds), and errors: wrong responses, failed connections and timeouts.
 */
export async function loadTest(target, stream, { connections, seconds, warmupSeconds }) {
  if (warmupSeconds > 0) await load(target, stream, connections, warmupSeconds)
  const { result, correct } = await load(target, stream, connections, seconds)
  const responses = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx']
  return {
    rps: correct / result.duration,
    p50_ms: result.latency.p50,
    p90_ms: result.latency.p90,
    p99_ms: result.latency.p99,
    errors: responses - correct + result.errors,
  }
}
