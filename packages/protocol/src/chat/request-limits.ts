// Size and shape limits of the request validators, in one place.
import { TOOLS_PER_REQUEST_MAX } from '../server-tools/types.js'

/**
 * Most tools one request may list (spec: tool search, "Up to 10,000 tools per request"), the
 * search tool entry itself not counted.
 */
export const TOOLS_MAX = TOOLS_PER_REQUEST_MAX

/** Tool and function names, as both official APIs define them. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

/** Most stop sequences a chat request may set (OpenAI's documented limit). */
export const CHAT_STOP_MAX = 4

/** Most choices a chat request may ask for (OpenAI's limit). */
export const CHAT_N_MAX = 128

/** Chat `metadata`: at most 16 pairs, keys up to 64 characters, values up to 512 (OpenAI's). */
export const CHAT_METADATA_PAIRS_MAX = 16
export const CHAT_METADATA_KEY_MAX = 64
export const CHAT_METADATA_VALUE_MAX = 512

/** Smallest thinking budget the messages API accepts. */
export const THINKING_BUDGET_MIN = 1024

/**
 * Deepest nesting of objects and arrays a request may have, the body itself counting as one.
 * `JSON.parse` accepts far deeper input, but `JSON.stringify` and any recursive walk overflow the
 * stack at a few thousand levels, so deeper input would fail later, when the request is sent on.
 * Real requests, tool schemas included, stay within a few dozen levels.
 */
export const JSON_DEPTH_MAX = 128
