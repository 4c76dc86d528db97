// The mod host of a session started without mods (`--no-mods`): nothing runs, nothing shows.
import type { ModHostPort, ScreenSlots, TickResult } from '../mods/host-port.js'

export class NullHost implements ModHostPort {
  async start(): Promise<void> {}
  emit(): void {}
  tick(): TickResult {
    return { lines: [], slotsChanged: false }
  }
  slots(): ScreenSlots {
    return { status: [], band: [], pane: [] }
  }
  running(): string[] {
    return []
  }
  async stop(): Promise<void> {}
}
