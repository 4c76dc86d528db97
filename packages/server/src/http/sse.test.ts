import assert from 'node:assert/strict'
import { createServer, request, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, it } from 'node:test'
import { CHAT_DONE, chatEvent, messagesEvent, SseResponse } from './sse.js'

/** A server whose one response is handed to the test, and a client request to it. */
async function exchange(): Promise<{
  res: ServerResponse
  response: Promise<import('node:http').IncomingMessage>
  close: () => void
}> {
  let handed: (res: ServerResponse) => void = () => {}
  const got = new Promise<ServerResponse>((resolve) => {
    handed = resolve
  })
  const server = createServer((_req, res) => handed(res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const response = new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path: '/' }, resolve)
    req.on('error', reject)
    req.end()
  })
  const res = await got
  return {
    res,
    response,
    close: () => {
      server.closeAllConnections()
      server.close()
    },
  }
}

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve))
}

/**
 * Writes big events to a client that reads nothing until a write asks to wait and the wait
 * stays pending: the socket's and the kernel's buffers are full.
 */
async function fill(sse: SseResponse): Promise<{ wait: Promise<void> }> {
  const event = chatEvent(`"${'x'.repeat(64 * 1024)}"`)
  for (let written = 0; written < 4096; written++) {
    const wait = sse.write(event)
    if (wait === undefined) continue
    let drained = false
    void wait.then(() => {
      drained = true
    })
    await ticks(20)
    // Wrapped: an async function returning the promise itself would wait for it.
    if (!drained) return { wait }
  }
  throw new Error('256 MiB went out to a client that reads nothing')
}

describe('SseResponse', () => {
  it('sends the headers with the first event and nothing before', async () => {
    const { res, response, close } = await exchange()
    let started = 0
    const sse = new SseResponse(res, { 'content-type': 'text/event-stream' }, () => {
      started += 1
    })
    assert.equal(sse.started, false)
    assert.equal(res.headersSent, false)
    await sse.write(chatEvent('{"a":1}'))
    await sse.write(chatEvent('{"a":2}'))
    sse.end(CHAT_DONE)
    assert.equal(started, 1)
    const incoming = await response
    assert.equal(incoming.headers['content-type'], 'text/event-stream')
    let text = ''
    for await (const chunk of incoming) text += chunk
    assert.equal(text, 'data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n')
    close()
  })

  it('waits for a slow reader instead of buffering without bound', async () => {
    const { res, response, close } = await exchange()
    const sse = new SseResponse(res, {}, () => {})
    const { wait } = await fill(sse)
    let drained = false
    void wait.then(() => {
      drained = true
    })
    const incoming = await response
    incoming.resume()
    await wait
    assert.equal(drained, true)
    assert.equal(sse.open, true)
    sse.end()
    await new Promise((resolve) => incoming.on('end', resolve))
    close()
  })

  it('stops waiting when the client goes away', async () => {
    const { res, response, close } = await exchange()
    const sse = new SseResponse(res, {}, () => {})
    const { wait } = await fill(sse)
    ;(await response).destroy()
    await wait
    assert.equal(sse.open, false)
    close()
  })

  it('names messages events after their type', () => {
    assert.equal(messagesEvent('ping', '{"type":"ping"}'), 'event: ping\ndata: {"type":"ping"}\n\n')
  })
})
