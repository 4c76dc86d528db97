/** Rounds of server tool calls one request may make before the server tools are taken away. */
export const MAX_SERVER_TOOL_ROUNDS = 10

/** What the model reads when it reached MAX_SERVER_TOOL_ROUNDS. */
export const ROUND_CAP_NOTE =
  'Server tools are no longer available in this request: answer with the tools already loaded.'
