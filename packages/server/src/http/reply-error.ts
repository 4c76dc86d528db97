import type { FastifyReply, FastifyRequest } from 'fastify'
import { type ApiError, envelope } from '../errors.js'

/** Sends an error in the unified envelope and notes its code for the request log. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): void {
  if (request.syntic) request.syntic.errorCode = error.code
  reply.code(error.status).type('application/json; charset=utf-8')
  if (error.status === 401) reply.header('www-authenticate', 'Bearer')
  reply.send(JSON.stringify(envelope(error, request.id)))
}
