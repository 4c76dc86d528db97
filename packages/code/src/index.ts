export {
  Agent,
  type AgentOptions,
  type Ask,
  type ModelClient,
  systemPrompt,
} from './agent/agent.js'
export {
  type AssistantReply,
  ChatClient,
  type ChatClientOptions,
  InterruptedError,
  ModelError,
} from './agent/chat-client.js'
export { readOnlyPrograms, readOnlyVerdict } from './agent/read-only.js'
export { projectId, projectMemoryDir } from './agent/tool-box.js'
export {
  type CodeConfig,
  ConfigError,
  type ConfigFlags,
  configFilePath,
  type ModelTarget,
  resolveConfig,
  synticHome,
} from './config/config.js'
export type * from './mods/host-port.js'
export { defaultScript, type TestModOptions, testMod } from './mods/test-harness.js'
export { formatEntry } from './print/format.js'
export { type ModGrants, parseGrantFlags, printGrantPrompt } from './print/grants.js'
export { type PrintOptions, runPrint } from './print/print-mode.js'
export { NullHost } from './session/null-host.js'
export {
  defaultHost,
  type HostContext,
  type Session,
  type SessionEndReason,
  type SessionOptions,
  startSession,
} from './session/session.js'
export * from './session/types.js'
export { type InteractiveOptions, runInteractive } from './ui/run.js'
