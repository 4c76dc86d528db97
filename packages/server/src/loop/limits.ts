/**
 * Rounds of calls one server tool may run in within a request before it is taken away, unless
 * the tool sets its own (code execution allows its `max_runs`).
 */
export const MAX_SERVER_TOOL_ROUNDS = 10

/**
 * Appended to the last result of a tool that reached its round cap. Only that tool is taken
 * away, so the note must not tell the model that every server tool is gone.
 */
export const ROUND_CAP_NOTE =
  'This tool is no longer available in this request: answer with what you have and the tools still listed.'

/** The result of a call to a server tool taken away earlier in the request. */
export const RETIRED_TOOL_NOTE =
  'Error: this tool is no longer available in this request. Answer with what you have.'
