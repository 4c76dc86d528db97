#!/usr/bin/env node
// The scripted upstream of the gateway benchmark: a bare node:http server that answers
// `POST /v1/chat/completions` at once with the fixed completion, or for `stream: true` with the
// fixed SSE stream written without delays. It checks the upstream key as a real provider would,
// so a gateway that drops it fails the run. Run directly, it listens on 127.0.0.1 (PORT or a free
// port) and prints `{"port":N}` once ready: the benchmark runs it as its own process so its CPU
// is apart from the load generator's.
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'
import {
  COMPLETION_JSON,
  STREAM_WITH_USAGE,
  STREAM_WITHOUT_USAGE,
  UPSTREAM_API_KEY,
} from './chat-fixture.mjs'

const completion = Buffer.from(COMPLETION_JSON)
const withUsage = STREAM_WITH_USAGE.map((event) => Buffer.from(event))
const withoutUsage = STREAM_WITHOUT_USAGE.map((event) => Buffer.from(event))
const bodyLimit = 1024 * 1024

function fail(res, status, message) {
  const body = Buffer.from(JSON.stringify({ error: { message, type: 'invalid_request_error' } }))
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length })
  res.end(body)
}

function answer(res, raw) {
  let body
  try {
    body = JSON.parse(raw)
  } catch {
    return fail(res, 400, 'The body is not JSON.')
  }
  if (!Array.isArray(body?.messages)) return fail(res, 400, 'messages is required.')
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length })
    return res.end(completion)
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const events = body.stream_options?.include_usage === true ? withUsage : withoutUsage
  for (const event of events) res.write(event)
  res.end()
}

function handle(req, res) {
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    return fail(res, 404, `No route ${req.method} ${req.url}.`)
  }
  if (req.headers.authorization !== `Bearer ${UPSTREAM_API_KEY}`) {
    return fail(res, 401, 'Incorrect API key provided.')
  }
  const parts = []
  let size = 0
  req.on('data', (part) => {
    size += part.length
    if (size <= bodyLimit) parts.push(part)
  })
  req.on('end', () => {
    if (size > bodyLimit) return fail(res, 413, 'The body is too large.')
    answer(res, Buffer.concat(parts).toString('utf8'))
  })
}

/** Starts the upstream on 127.0.0.1:`port` (0: a free one); resolves with the node:http server. */
export function startFastUpstream(port = 0) {
  const server = createServer({ keepAliveTimeout: 60_000 }, handle)
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startFastUpstream(Number(process.env.PORT ?? 0))
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`)
}
