import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RunningServer, startServer } from '../app.js'
import { openStore } from '../store/open.js'
import type { Store } from '../store/port.js'

/**
 * A real server without an upstream (the Files and usage APIs need none) on a temporary home,
 * with keys in two workspaces of one org and one in another org.
 */
export class FilesServer {
  private constructor(
    readonly server: RunningServer,
    readonly store: Store,
    readonly home: string,
    readonly keys: { research: string; staging: string; globex: string },
    readonly errors: string[],
  ) {}

  static async start(options: { filesMaxBytes?: number } = {}): Promise<FilesServer> {
    const home = mkdtempSync(join(tmpdir(), 'syntic-files-'))
    const errors: string[] = []
    const server = await startServer(
      {
        host: '127.0.0.1',
        port: 0,
        home,
        models: {},
        bodyLimitBytes: 1024 * 1024,
        requestLog: false,
        ...(options.filesMaxBytes !== undefined ? { filesMaxBytes: options.filesMaxBytes } : {}),
      },
      { errorLog: { write: (line: string) => errors.push(line) } },
    )
    const store = await openStore({ home })
    const research = (await store.createKey({ org: 'acme', workspace: 'research' })).key
    const staging = (await store.createKey({ org: 'acme', workspace: 'staging' })).key
    const globex = (await store.createKey({ org: 'globex', workspace: 'research' })).key
    return new FilesServer(server, store, home, { research, staging, globex }, errors)
  }

  /** A request with the research key unless `key` says otherwise (null: no key). */
  fetch(path: string, init: RequestInit & { key?: string | null } = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    const key = init.key === undefined ? this.keys.research : init.key
    if (key !== null) headers.set('authorization', `Bearer ${key}`)
    return fetch(`${this.server.url}${path}`, { ...init, headers })
  }

  /** Uploads `content` as `filename` with purpose code_input. */
  upload(
    filename: string,
    content: string | Uint8Array,
    key?: string,
    purpose = 'code_input',
  ): Promise<Response> {
    const form = new FormData()
    form.append('purpose', purpose)
    form.append('file', new Blob([content]), filename)
    return this.fetch('/v1/files', { method: 'POST', body: form, ...(key ? { key } : {}) })
  }

  async close(): Promise<void> {
    await this.server.close()
    await this.store.close()
    rmSync(this.home, { recursive: true, force: true })
    if (this.errors.length > 0) {
      throw new Error(`the server logged unexpected errors:\n${this.errors.join('')}`)
    }
  }
}
