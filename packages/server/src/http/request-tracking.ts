import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Metrics } from '../metrics.js'
import { type LogSink, loggedModel, loggedPath, roundMs, writeRequestLog } from '../request-log.js'
import { ClientGone, RequestState } from './request-state.js'

export type RequestTracker = (request: FastifyRequest, reply: FastifyReply) => RequestState

/**
 * Starts a request's state and its id headers, and when its response closes, counts it in the
 * metrics and writes its log line (when `log` is set). A client that left first aborts the
 * upstream call. Idempotent: a request is tracked once.
 */
export function requestTracker(metrics: Metrics, log: LogSink | null): RequestTracker {
  return (request, reply) => {
    if (request.syntic) return request.syntic
    const state = new RequestState(request.id, request.routeOptions.url ?? 'unmatched')
    request.syntic = state
    // The Anthropic SDK reads `request-id`; everything else `x-request-id`.
    reply.header('x-request-id', state.id)
    reply.header('request-id', state.id)
    metrics.requestStarted()
    const res = reply.raw
    res.once('close', () => {
      state.upstreamWaitEnded()
      const totalMs = performance.now() - state.start
      let status = res.statusCode
      if (!res.writableFinished) {
        // The client went away first; 499 as in nginx when no status was sent yet.
        if (!res.headersSent) status = 499
        state.errorCode ??= 'client_closed_request'
        state.upstreamCall?.abort(new ClientGone())
      }
      const ownMs = Math.max(0, totalMs - (state.upstreamMs ?? 0))
      metrics.requestFinished(
        state.route,
        request.method,
        status,
        ownMs / 1000,
        state.upstreamMs === null ? null : state.upstreamMs / 1000,
      )
      if (log === null) return
      writeRequestLog(log, {
        ts: new Date().toISOString(),
        id: state.id,
        method: request.method,
        path: loggedPath(request.url),
        org: state.principal?.org ?? null,
        workspace: state.principal?.workspace ?? null,
        model: state.model === null ? null : loggedModel(state.model),
        status,
        stream: state.stream,
        upstream_ms: state.upstreamMs === null ? null : roundMs(state.upstreamMs),
        own_ms: roundMs(ownMs),
        error_code: state.errorCode,
      })
    })
    return state
  }
}
