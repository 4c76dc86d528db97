// Limits named after the spec's words, in one place.

/** The prefix reserved for built-in tools (spec: Build notes). */
export const RESERVED_TOOL_PREFIX = 'syntic_'

/** Longest `root` display path a standard tool entry may set, in characters. */
export const ROOT_MAX_CHARS = 1024

/**
 * Bounds for the shell's `max_output_chars`. Below 1,000 characters a single error message or
 * stack trace no longer fits, so the model cannot work; above 1,000,000 (roughly 250,000 tokens)
 * the output alone would overflow any model's context, so the number promises nothing useful.
 */
export const MAX_OUTPUT_CHARS_MIN = 1_000
export const MAX_OUTPUT_CHARS_MAX = 1_000_000
