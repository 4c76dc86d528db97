import type { AddressInfo } from 'node:net'
import type { SandboxDriver } from '@syntic/sandbox'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { LocalBlobStore } from './blobs/local-blob-store.js'
import type { BlobStore } from './blobs/port.js'
import type { ServerConfig } from './config.js'
import { type ContainerRuntime, openContainerRuntime } from './containers/runtime.js'
import { ApiError } from './errors.js'
import { FileService } from './files/file-service.js'
import { DEFAULT_FILE_MAX_BYTES } from './files/limits.js'
import { authenticate } from './http/auth.js'
import { answerClientError } from './http/client-error.js'
import { closeUnusedConnectionsOnClose } from './http/connections.js'
import { internalError, methodNotAllowed, notFound, requestError } from './http/errors.js'
import { filesRoutes } from './http/files-routes.js'
import { parseJsonBody } from './http/json-body.js'
import { ModelEndpoints } from './http/model-endpoints.js'
import { ModelMap } from './http/model-map.js'
import { sendError } from './http/reply-error.js'
import { newRequestId } from './http/request-id.js'
import { requestTracker } from './http/request-tracking.js'
import { usageRoutes } from './http/usage-routes.js'
import { serverToolCallCounter } from './loop/server-tool-metrics.js'
import { Metrics } from './metrics.js'
import { OrgSettingsReader } from './orgs/org-settings-reader.js'
import { type LogSink, loggedPath, writeErrorLog } from './request-log.js'
import type { ToolIndex } from './server-tools/index.js'
import { createToolIndex } from './server-tools/tool-search/create-tool-index.js'
import { openStore } from './store/open.js'
import type { Store } from './store/port.js'
import { createUpstream } from './upstream/index.js'
import type { Upstream } from './upstream/port.js'
import { UsageLedger } from './usage/usage-ledger.js'

export interface AppDeps {
  store: Store
  /** The model server; without it the model endpoints answer 503 upstream_not_configured. */
  upstream?: Upstream
  /** Where the request log lines go (when `config.requestLog`); process.stdout by default. */
  log?: LogSink
  /** Where unexpected exceptions are written, with their stacks; process.stderr by default. */
  errorLog?: LogSink
  /**
   * The tool search index (catalogs cached by hash); by default one per app, its embedder from
   * `config.embeddings`. Servers in one process (tests) may share one.
   */
  toolIndex?: ToolIndex
  /** Where file contents go; by default a folder in `config.home` (`LocalBlobStore`). */
  blobs?: BlobStore
  /**
   * The sandbox driver for code execution, owned by the caller; by default one is opened from
   * `config.sandbox` (none when that is unset) and closed with the app.
   */
  sandbox?: SandboxDriver
}

/** The API's paths and the methods each takes; any other method on them is a 405. */
const ROUTES: Readonly<Record<string, readonly string[]>> = {
  '/v1/chat/completions': ['POST'],
  '/v1/messages': ['POST'],
  '/v1/models': ['GET', 'HEAD'],
  '/v1/files': ['GET', 'HEAD', 'POST'],
  '/v1/organization/usage': ['GET', 'HEAD'],
  '/healthz': ['GET', 'HEAD'],
  '/metrics': ['GET', 'HEAD'],
}

const SHUTTING_DOWN = new ApiError(
  503,
  'api_error',
  'server_shutting_down',
  'The server is shutting down; retry the request',
)

/** The API server as a fastify instance, not yet listening. */
export async function createApp(config: ServerConfig, deps: AppDeps): Promise<FastifyInstance> {
  const runtime = await openContainerRuntime({
    store: deps.store,
    config: config.sandbox,
    ...(deps.sandbox ? { driver: deps.sandbox } : {}),
    errorLog: deps.errorLog ?? process.stderr,
  })
  // Until the app exists nothing else would stop the reaper and the warm pool's sandboxes.
  try {
    return await assembleApp(config, deps, runtime)
  } catch (error) {
    await runtime.close()
    throw error
  }
}

async function assembleApp(
  config: ServerConfig,
  deps: AppDeps,
  runtime: ContainerRuntime,
): Promise<FastifyInstance> {
  const { store } = deps
  const log = config.requestLog ? (deps.log ?? process.stdout) : null
  const errorLog = deps.errorLog ?? process.stderr
  const metrics = new Metrics()
  const models = new ModelMap(config.models)
  const files = new FileService(
    store,
    deps.blobs ?? new LocalBlobStore(config.home),
    config.filesMaxBytes ?? DEFAULT_FILE_MAX_BYTES,
  )
  const ledger = new UsageLedger(store)
  const endpoints = new ModelEndpoints({
    upstream: deps.upstream ?? null,
    models,
    metrics,
    errorLog,
    toolIndex: deps.toolIndex ?? createToolIndex(config.embeddings),
    serverToolCalls: serverToolCallCounter(metrics.registry),
    codeExecution: {
      containers: runtime.containers,
      ...(runtime.unavailable !== undefined ? { unavailable: runtime.unavailable } : {}),
      files,
      orgSettings: new OrgSettingsReader(store, { tiers: config.tiers }),
      ledger,
    },
  })

  const track = requestTracker(metrics, log)

  const app = Fastify({
    logger: false,
    bodyLimit: config.bodyLimitBytes,
    genReqId: newRequestId,
    requestIdHeader: false,
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, request, reply) => {
      track(request, reply)
      const api = requestError(error, config.bodyLimitBytes) ?? internalError()
      sendError(request, reply, api)
    },
  })

  app.decorateRequest('syntic', null)
  app.addHook('onClose', async () => {
    await runtime.close()
  })
  closeUnusedConnectionsOnClose(app)

  let closing = false
  app.addHook('preClose', (done) => {
    closing = true
    done()
  })

  app.addHook('onRequest', (request, reply, done) => {
    track(request, reply)
    // Requests that arrive while in-flight ones drain are turned away, for a balancer to retry.
    if (closing) {
      reply.header('connection', 'close')
      sendError(request, reply, SHUTTING_DOWN)
      return
    }
    done()
  })

  // Only JSON bodies: every other media type is a 415 before any body is read into memory.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string))
    } catch (error) {
      done(error as Error, undefined)
    }
  })

  app.setErrorHandler((error, request, reply) => {
    track(request, reply)
    let api = requestError(error, config.bodyLimitBytes)
    if (api === null) {
      // A client that left mid-upload is no fault of the server's, and there is nobody to answer.
      if (clientLeft(request)) return
      writeErrorLog(errorLog, request.id, error)
      api = internalError()
    }
    sendError(request, reply, api)
  })

  app.setNotFoundHandler((request, reply) => {
    const path = loggedPath(request.url)
    const allowed = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined
    if (allowed !== undefined) {
      reply.header('allow', allowed.join(', '))
      sendError(request, reply, methodNotAllowed(request.method, path, allowed))
      return
    }
    sendError(request, reply, notFound(request.method, path))
  })

  // The key is checked before the body is read: a client without one cannot make the server
  // receive and parse a body of up to the body limit.
  const authenticated = {
    onRequest: async (request: FastifyRequest): Promise<void> => {
      request.syntic!.principal = await authenticate(store, request.headers)
    },
  }

  app.post('/v1/chat/completions', authenticated, (request, reply) =>
    endpoints.chatCompletions(request, reply),
  )
  app.post('/v1/messages', authenticated, (request, reply) => endpoints.messages(request, reply))

  const created = Math.floor(Date.now() / 1000)
  const modelList = JSON.stringify({
    object: 'list',
    data: models.names.map((id) => ({ id, object: 'model', created, owned_by: 'syntic' })),
  })
  app.get('/v1/models', authenticated, async (_request, reply) => {
    reply.type('application/json; charset=utf-8')
    return modelList
  })

  await app.register(filesRoutes, { files, authenticate: authenticated.onRequest })
  await app.register(usageRoutes, {
    ledger,
    authenticate: authenticated.onRequest,
  })

  app.get('/healthz', async (request, reply) => {
    try {
      await store.ping()
    } catch (error) {
      writeErrorLog(errorLog, request.id, error)
      throw new ApiError(
        503,
        'api_error',
        'store_unavailable',
        'The metadata store does not answer',
      )
    }
    reply.type('application/json; charset=utf-8')
    return '{"status":"ok"}'
  })

  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.contentType)
    return metrics.text()
  })

  await app.ready()
  return app
}

/**
 * Whether the client dropped the connection before its body was complete. An error's code alone
 * (ECONNRESET) cannot tell: a store connection reset by the database has it too, and must be logged.
 */
function clientLeft(request: FastifyRequest): boolean {
  const { raw } = request
  return !raw.complete && (raw.aborted || raw.destroyed)
}

export interface RunningServer {
  /** `http://host:port`, with the port actually bound (config port 0 picks a free one). */
  url: string
  /** Stops taking requests, lets those in flight finish (cut after a grace period), closes all. */
  close(): Promise<void>
}

export interface StartOptions {
  log?: LogSink
  errorLog?: LogSink
  toolIndex?: ToolIndex
  /** A sandbox driver the caller owns, instead of one opened from `config.sandbox`. */
  sandbox?: SandboxDriver
}

// In-flight requests may finish within this; streams still open after it are cut.
const SHUTDOWN_GRACE_MS = 10_000

/** Opens the store, creates the upstream client and listens on the configured host and port. */
export async function startServer(
  config: ServerConfig,
  options: StartOptions = {},
): Promise<RunningServer> {
  const store = await openStore({
    home: config.home,
    ...(config.databaseUrl !== undefined ? { databaseUrl: config.databaseUrl } : {}),
  })
  let upstream: Upstream | undefined
  let app: FastifyInstance | undefined
  try {
    upstream = config.upstream ? createUpstream(config.upstream) : undefined
    app = await createApp(config, {
      store,
      ...(upstream ? { upstream } : {}),
      ...options,
    })
    await app.listen({ host: config.host, port: config.port })
  } catch (error) {
    await app?.close()
    await upstream?.close()
    await store.close()
    throw error
  }
  const running = app
  const address = running.server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${address.port}`,
    close() {
      closing ??= (async () => {
        const cut = setTimeout(() => running.server.closeAllConnections(), SHUTDOWN_GRACE_MS)
        cut.unref()
        try {
          await running.close()
        } finally {
          clearTimeout(cut)
          await upstream?.close()
          await store.close()
        }
      })()
      return closing
    },
  }
}
