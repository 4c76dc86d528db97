// A mod's side of the Mod API: read the host's lines, dispatch them, write ours. One instance per
// process; it ends cleanly on `bye` or when standard input closes.
import {
  type EventDataMap,
  type EventName,
  type HelloMessage,
  type HostMessage,
  type JsonValue,
  type ModMessage,
  type PermissionName,
  PROTOCOL_VERSION,
  type SessionStateValue,
  type SlotName,
} from './messages.js'

/** What to show in a slot: a string (newlines split rows in band and pane), rows, or both. */
export type DrawContent = string | string[] | { text?: string; lines?: string[]; title?: string }

/** An `ok: false` result, with the host's error string as the message. */
export class ModCallError extends Error {
  override name = 'ModCallError'
}

export interface ModOptions {
  /** Runs once the host's `hello` arrives; events are dispatched only after it returns. */
  onHello?: (hello: HelloMessage) => void | Promise<void>
  /** Runs on `bye` or end of input, before the process exits. Keep it short: half a second. */
  onBye?: () => void | Promise<void>
  /** Refuse to run against another protocol version (default true): exit with code 2. */
  strictProtocol?: boolean
  input?: NodeJS.ReadableStream
  output?: NodeJS.WritableStream
  /** Exit the process after `bye` (default: true when using the process's own stdio). */
  exitOnBye?: boolean
}

export interface Mod {
  /** The host's `hello`, once it arrived. */
  readonly hello: HelloMessage | undefined
  /** Resolves once the session ended (`bye` or end of input) and `onBye` ran. */
  readonly done: Promise<void>
  granted(permission: PermissionName): boolean
  onEvent<K extends EventName>(name: K, handler: (data: EventDataMap[K]) => void): Mod
  /** Set a slot; `null` (or empty content) clears it. */
  draw(slot: SlotName, content: DrawContent | null): void
  subscribe(events: EventName[]): void
  /** `note.post`; rejects with a ModCallError carrying the host's error string. */
  note(text: string): Promise<void>
  /** `session.state`. */
  state(): Promise<SessionStateValue>
  call(method: string, params?: { [key: string]: JsonValue }): Promise<JsonValue>
}

type Handler = (data: never) => void

export function createMod(options: ModOptions = {}): Mod {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const exitOnBye = options.exitOnBye ?? options.input === undefined
  const handlers = new Map<string, Handler[]>()
  const pending = new Map<number, { resolve: (v: JsonValue) => void; reject: (e: Error) => void }>()
  let hello: HelloMessage | undefined
  let nextId = 1
  let ended = false
  let ready: Promise<void> = Promise.resolve()
  let finish: () => void = () => {}
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })

  const send = (message: ModMessage): void => {
    if (!ended) output.write(`${JSON.stringify(message)}\n`)
  }

  const end = async (): Promise<void> => {
    if (ended) return
    ended = true
    for (const call of pending.values()) call.reject(new ModCallError('the session ended'))
    pending.clear()
    try {
      await options.onBye?.()
    } finally {
      finish()
      if (exitOnBye) process.exit()
    }
  }

  const dispatch = (message: HostMessage): void => {
    switch (message.type) {
      case 'hello':
        if (hello) return
        hello = message
        if (message.protocol !== PROTOCOL_VERSION && options.strictProtocol !== false) {
          process.exitCode = 2
          void end()
          return
        }
        ready = Promise.resolve(options.onHello?.(message))
        return
      case 'event': {
        const list = handlers.get(message.event) ?? []
        void ready.then(() => {
          for (const handler of list) (handler as (data: unknown) => void)(message.data)
        })
        return
      }
      case 'result': {
        if (typeof message.id !== 'number') return
        const call = pending.get(message.id)
        if (!call) return
        pending.delete(message.id)
        if (message.ok) call.resolve(message.value)
        else call.reject(new ModCallError(message.error))
        return
      }
      case 'bye':
        void end()
        return
    }
  }

  let buffer = ''
  input.setEncoding?.('utf8')
  input.on('data', (chunk: string | Buffer) => {
    buffer += typeof chunk === 'string' ? chunk : chunk.toString('utf8')
    let newline = buffer.indexOf('\n')
    while (newline !== -1) {
      const line = buffer.slice(0, newline).trim()
      buffer = buffer.slice(newline + 1)
      if (line !== '') {
        try {
          dispatch(JSON.parse(line) as HostMessage)
        } catch {
          // The host only sends valid JSON; a broken line is not worth dying over.
        }
      }
      newline = buffer.indexOf('\n')
    }
  })
  input.on('end', () => void end())
  input.on('error', () => void end())
  output.on?.('error', () => void end())

  const call = (method: string, params?: { [key: string]: JsonValue }): Promise<JsonValue> => {
    if (ended) return Promise.reject(new ModCallError('the session ended'))
    const id = nextId++
    return new Promise<JsonValue>((resolve, reject) => {
      pending.set(id, { resolve, reject })
      send(
        params === undefined ? { type: 'call', id, method } : { type: 'call', id, method, params },
      )
    })
  }

  const mod: Mod = {
    get hello() {
      return hello
    },
    done,
    granted: (permission) => hello?.granted.includes(permission) ?? false,
    onEvent(name, handler) {
      const list = handlers.get(name) ?? []
      list.push(handler as Handler)
      handlers.set(name, list)
      return mod
    },
    draw(slot, content) {
      if (content === null) return send({ type: 'draw', slot })
      if (typeof content === 'string') return send({ type: 'draw', slot, text: content })
      if (Array.isArray(content)) return send({ type: 'draw', slot, lines: content })
      send({ type: 'draw', slot, ...content })
    },
    subscribe(events) {
      send({ type: 'subscribe', events })
    },
    async note(text) {
      await call('note.post', { text })
    },
    async state() {
      return (await call('session.state')) as unknown as SessionStateValue
    },
    call,
  }
  return mod
}
