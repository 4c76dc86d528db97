// Limits named after the spec's words, in one place.

/** The prefix reserved for built-in tools (spec: Build notes). */
export const RESERVED_TOOL_PREFIX = 'syntic_'
