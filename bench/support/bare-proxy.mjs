#!/usr/bin/env node
// The floor for any Node gateway: a pass-through proxy with no auth, validation or logging, one
// node:http server relaying each request to the upstream over undici's keep-alive pool and piping
// the answer back. The gateway benchmark measures it beside the real gateways so the latency a
// proxy hop costs on this machine (two more sockets, two more processes to wake) is visible.
// Run directly: UPSTREAM=http://127.0.0.1:N, listens on 127.0.0.1 (PORT or a free port) and
// prints `{"port":N}` once ready.
import { createServer } from 'node:http'
import { pipeline } from 'node:stream/promises'
import { pathToFileURL } from 'node:url'
import { Pool } from 'undici'

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host'])

function forwardable(headers) {
  const kept = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!hopByHop.has(name)) kept[name] = value
  }
  return kept
}

/** Starts the proxy in front of `upstreamOrigin`; resolves with the node:http server. */
export function startBareProxy(upstreamOrigin, port = 0) {
  const pool = new Pool(upstreamOrigin, { keepAliveTimeout: 60_000 })
  const server = createServer({ keepAliveTimeout: 60_000 }, async (req, res) => {
    try {
      const parts = []
      for await (const part of req) parts.push(part)
      const answer = await pool.request({
        path: req.url,
        method: req.method,
        headers: forwardable(req.headers),
        body: Buffer.concat(parts),
      })
      res.writeHead(answer.statusCode, forwardable(answer.headers))
      await pipeline(answer.body, res)
    } catch (error) {
      res.destroy(error)
    }
  })
  server.on('close', () => pool.close())
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = await startBareProxy(process.env.UPSTREAM, Number(process.env.PORT ?? 0))
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`)
}
