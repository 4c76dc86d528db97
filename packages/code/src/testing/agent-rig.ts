// Shared set-up for the agent's tests: a scripted upstream, a temporary project and home, and
// an agent that records its events and permission requests.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ScriptedUpstream } from '@syntic/server/testing'
import { Agent } from '../agent/agent.js'
import { ChatClient } from '../agent/chat-client.js'
import type {
  PermissionAnswer,
  PermissionMode,
  PermissionRequest,
  SessionEvent,
} from '../session/types.js'

export interface Rig {
  upstream: ScriptedUpstream
  project: string
  home: string
  events: SessionEvent[]
  asked: PermissionRequest[]
  /** What the next permission requests are answered, in order; then `deny`. */
  answers: PermissionAnswer[]
  agent(mode?: PermissionMode, options?: { maxSteps?: number; upstreamUrl?: string }): Agent
  close(): Promise<void>
}

export async function startRig(): Promise<Rig> {
  const upstream = await ScriptedUpstream.start()
  const base = mkdtempSync(join(tmpdir(), 'syntic-agent-'))
  const project = join(base, 'project')
  const home = join(base, 'home', '.syntic')
  mkdirSync(project, { recursive: true })
  const agents: Agent[] = []
  const rig: Rig = {
    upstream,
    project,
    home,
    events: [],
    asked: [],
    answers: [],
    agent(mode = 'default', options = {}) {
      const client = new ChatClient({
        target: {
          kind: 'upstream',
          baseUrl: options.upstreamUrl ?? upstream.openaiUrl,
          apiKey: 'k',
        },
        model: 'm1',
        root: project,
        maxOutputChars: 20_000,
        maxRetries: 0,
      })
      const agent = new Agent({
        client,
        model: 'm1',
        cwd: project,
        home,
        mode,
        sandbox: true,
        network: false,
        maxSteps: options.maxSteps ?? 10,
        sessionId: 'sess-1',
        ask: async (request) => {
          rig.asked.push(request)
          return rig.answers.shift() ?? 'deny'
        },
        onEvent: (event) => rig.events.push(event),
      })
      agents.push(agent)
      return agent
    },
    async close() {
      for (const agent of agents) await agent.close()
      await upstream.close()
      rmSync(base, { recursive: true, force: true })
    },
  }
  return rig
}

/** The messages the agent sent in request #index. */
export function sentMessages(
  rig: Rig,
  index: number,
): { role: string; content?: unknown; tool_call_id?: string }[] {
  const body = rig.upstream.requests[index]?.body as { messages?: { role: string }[] } | undefined
  return (body?.messages ?? []) as { role: string; content?: unknown; tool_call_id?: string }[]
}

/** The content of the tool message answering `callId` in the last request. */
export function toolResult(rig: Rig, callId: string): string | undefined {
  const messages = sentMessages(rig, rig.upstream.requests.length - 1)
  const found = messages.find((m) => m.role === 'tool' && m.tool_call_id === callId)
  return typeof found?.content === 'string' ? found.content : undefined
}
