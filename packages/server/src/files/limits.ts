/** Largest file accepted by `POST /v1/files` unless configured otherwise (512 MiB). */
export const DEFAULT_FILE_MAX_BYTES = 512 * 1024 * 1024
/** Files per page of `GET /v1/files`, by default and at most. */
export const DEFAULT_FILE_PAGE_LIMIT = 20
export const MAX_FILE_PAGE_LIMIT = 100
