import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

/**
 * Connections that never carried a request (clients open spare ones: undici's fetch does when a
 * request is aborted) are not "idle" to Node, so they would hold up `close` until they time out.
 * They are cut when the server closes; idle keep-alive connections are closed by fastify itself.
 */
export function closeUnusedConnectionsOnClose(app: FastifyInstance): void {
  const unused = new Set<Socket>()
  app.server.on('connection', (socket: Socket) => {
    unused.add(socket)
    socket.once('close', () => unused.delete(socket))
  })
  app.server.on('request', (request: IncomingMessage) => unused.delete(request.socket))
  app.addHook('preClose', (done) => {
    for (const socket of unused) socket.destroy()
    done()
  })
}
