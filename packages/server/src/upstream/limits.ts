/** Largest non-streamed upstream reply read into memory; a larger one fails instead of buffering. */
export const MAX_UPSTREAM_JSON_BYTES = 64 * 1024 * 1024

/** Longest SSE line, and largest single event, accepted from an upstream stream (in characters). */
export const MAX_SSE_LINE_CHARS = 4 * 1024 * 1024

/** How much of an upstream error body is read to find its message; the rest is discarded. */
export const MAX_UPSTREAM_ERROR_BYTES = 64 * 1024

/** How much of the upstream's own error message is quoted in ours. */
export const UPSTREAM_MESSAGE_CHARS = 500

/** How much raw upstream data (an event or line it could not read) is quoted in an error. */
export const EXCERPT_CHARS = 60

/** Sockets kept open to one upstream; enough for high concurrency without exhausting its accept queue. */
export const UPSTREAM_CONNECTIONS = 128
