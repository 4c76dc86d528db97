import { Counter, Gauge, Histogram, Registry } from 'prom-client'

// Our own time is expected in tenths of a millisecond; anything in the last buckets is a problem.
const OWN_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 2]
// Model calls take from a fraction of a second to many minutes.
const UPSTREAM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]

/**
 * The server's Prometheus metrics, in a registry of their own so that several servers in one
 * process (tests) never share counts.
 */
export class Metrics {
  readonly registry = new Registry()
  private readonly requests = new Counter({
    name: 'syntic_http_requests_total',
    help: 'Requests answered, by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  })
  private readonly ownDuration = new Histogram({
    name: 'syntic_http_own_duration_seconds',
    help: "Time the server itself spent on a request: the total minus the upstream's time",
    labelNames: ['route'] as const,
    buckets: OWN_BUCKETS,
    registers: [this.registry],
  })
  private readonly upstreamDuration = new Histogram({
    name: 'syntic_upstream_duration_seconds',
    help: 'Time spent waiting on the upstream model per request, streams included',
    labelNames: ['route'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [this.registry],
  })
  private readonly inFlight = new Gauge({
    name: 'syntic_http_requests_in_flight',
    help: 'Requests being handled now',
    registers: [this.registry],
  })
  private readonly upstreamErrors = new Counter({
    name: 'syntic_upstream_errors_total',
    help: 'Upstream failures, by error code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  })

  // Bound label sets, looked up by one string key: cheaper than prom-client hashing the label
  // object on every observation. Routes, methods and statuses are few, so the maps stay small.
  private readonly requestCounters = new Map<string, Counter.Internal>()
  private readonly routeTimers = new Map<
    string,
    { own: Histogram.Internal<'route'>; upstream: Histogram.Internal<'route'> }
  >()

  requestStarted(): void {
    this.inFlight.inc()
  }

  /** `upstreamSeconds` is null for requests that never called the upstream. */
  requestFinished(
    route: string,
    method: string,
    status: number,
    ownSeconds: number,
    upstreamSeconds: number | null,
  ): void {
    this.inFlight.dec()
    const key = `${route} ${method} ${status}`
    let counter = this.requestCounters.get(key)
    if (counter === undefined) {
      counter = this.requests.labels({ route, method, status })
      this.requestCounters.set(key, counter)
    }
    counter.inc()
    let timers = this.routeTimers.get(route)
    if (timers === undefined) {
      timers = {
        own: this.ownDuration.labels({ route }),
        upstream: this.upstreamDuration.labels({ route }),
      }
      this.routeTimers.set(route, timers)
    }
    timers.own.observe(ownSeconds)
    if (upstreamSeconds !== null) timers.upstream.observe(upstreamSeconds)
  }

  upstreamError(code: string): void {
    this.upstreamErrors.inc({ code })
  }

  get contentType(): string {
    return this.registry.contentType
  }

  text(): Promise<string> {
    return this.registry.metrics()
  }
}
