// Standard tool expansion: each `{ "type": "syntic_shell", ... }` entry of a validated request
// becomes the function tool the model sees. The model then calls it by the type name and the call
// comes back to the client as an ordinary tool call.
import type { ChatCompletionRequest, ChatFunctionTool, ChatTool } from '../chat/types.js'
import type { MessagesCustomTool, MessagesRequest, MessagesTool } from '../messages/types.js'
import type { SynticVersion } from '../versions.js'
import { standardToolDefinition, validateStandardToolOptions } from './definitions.js'
import { isStandardToolType, type StandardToolDefinition } from './types.js'

function definitionFor(
  entry: { type: string } & Record<string, unknown>,
  version: SynticVersion,
): StandardToolDefinition | undefined {
  if (!isStandardToolType(entry.type)) return undefined
  const check = validateStandardToolOptions(entry.type, entry)
  // Requests reach expansion validated; an entry that still fails renders with default options
  // rather than throwing.
  return standardToolDefinition(entry.type, check.ok ? check.options : {}, version)
}

function hasStandardTool(tools: readonly { type?: unknown }[] | undefined): boolean {
  return tools?.some((tool) => isStandardToolType(tool.type)) ?? false
}

/**
 * Replaces each standard tool entry of a chat request by
 * `{ type: 'function', function: { name, description, parameters } }` as the API version defines
 * it, keeping the order. A request without standard tools is returned as is.
 */
export function expandChatTools(
  request: ChatCompletionRequest,
  version: SynticVersion,
): ChatCompletionRequest {
  if (!hasStandardTool(request.tools)) return request
  const tools = request.tools!.map((tool): ChatTool => {
    const definition = definitionFor(tool as ChatTool & Record<string, unknown>, version)
    if (definition === undefined) return tool
    const expanded: ChatFunctionTool = {
      type: 'function',
      function: {
        name: definition.name,
        description: definition.description,
        parameters: definition.input_schema,
      },
    }
    return expanded
  })
  return { ...request, tools }
}

/**
 * Replaces each standard tool entry of a messages request by `{ name, description, input_schema }`
 * as the API version defines it, keeping the order. A request without standard tools is returned
 * as is.
 */
export function expandMessagesTools(
  request: MessagesRequest,
  version: SynticVersion,
): MessagesRequest {
  if (!hasStandardTool(request.tools)) return request
  const tools = request.tools!.map((tool): MessagesTool => {
    const definition = definitionFor(tool as { type: string } & Record<string, unknown>, version)
    if (definition === undefined) return tool
    const expanded: MessagesCustomTool = {
      name: definition.name,
      description: definition.description,
      input_schema: { ...definition.input_schema, type: 'object' },
    }
    return expanded
  })
  return { ...request, tools }
}
