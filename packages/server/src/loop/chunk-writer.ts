import type {
  ChatCompletionChunk,
  ChatDelta,
  ChatFinishReason,
  ChatUsage,
  ContainerInfo,
} from '@syntic/protocol'

/** Hands a chunk to the client; resolves when the client can take more. */
export type ChunkSink = (chunk: ChatCompletionChunk) => Promise<void> | undefined

/**
 * The stream the client sees while the loop makes several upstream calls: one `id`, `created`
 * and `model` throughout, the assistant role in the first chunk, one finish chunk at the end.
 */
export class ChunkWriter {
  private started = false

  constructor(
    private readonly id: string,
    private readonly created: number,
    private readonly model: string,
    private readonly sink: ChunkSink,
  ) {}

  async delta(delta: ChatDelta): Promise<void> {
    await this.start()
    await this.sink(this.chunk(delta, null))
  }

  /** The finish chunk; it carries the request's `container` when code execution used one. */
  async finish(reason: ChatFinishReason, container?: ContainerInfo): Promise<void> {
    await this.start()
    const chunk = this.chunk({}, reason)
    if (container !== undefined) chunk.container = container
    await this.sink(chunk)
  }

  async usage(usage: ChatUsage): Promise<void> {
    await this.sink({
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [],
      usage,
    })
  }

  private async start(): Promise<void> {
    if (this.started) return
    this.started = true
    await this.sink(this.chunk({ role: 'assistant', content: '' }, null))
  }

  private chunk(delta: ChatDelta, reason: ChatFinishReason | null): ChatCompletionChunk {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, finish_reason: reason, logprobs: null }],
    }
  }
}
