/**
 * Rounds of calls one server tool may run in within a request before it is taken away, unless
 * the tool sets its own (code execution allows its `max_runs`).
 */
export const MAX_SERVER_TOOL_ROUNDS = 10

/** What the model reads when it reached MAX_SERVER_TOOL_ROUNDS. */
export const ROUND_CAP_NOTE =
  'Server tools are no longer available in this request: answer with the tools already loaded.'

/** The result of a call to a server tool taken away earlier in the request. */
export const RETIRED_TOOL_NOTE =
  'Error: this tool is no longer available in this request. Answer with what you have.'
