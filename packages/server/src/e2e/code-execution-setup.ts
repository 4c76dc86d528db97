import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import { LocalDriver, removeCgroupParent, requireImage } from '@syntic/sandbox'
import OpenAI from 'openai'
import { type RunningServer, startServer } from '../app.js'
import type { SandboxConfig, ServerConfig } from '../config.js'
import { openStore } from '../store/open.js'
import type { Store } from '../store/port.js'
import { ScriptedUpstream } from '../testing/scripted-upstream.js'
import type { UpstreamFormat } from '../upstream/port.js'

/** A local driver with its own state folder and cgroup parent, so test files never meet. */
export async function openDriver(runTimeoutMs?: number): Promise<{
  driver: LocalDriver
  reopen: () => Promise<LocalDriver>
  close: () => Promise<void>
}> {
  const rootfs = requireImage()
  const stateDir = mkdtempSync(join(tmpdir(), 'syntic-ce-e2e-'))
  const cgroupParent = `syntic-ce-${randomBytes(4).toString('hex')}`
  const limits = runTimeoutMs === undefined ? {} : { runTimeoutMs }
  const open = () => LocalDriver.open({ rootfs, stateDir, cgroupParent, limits })
  const driver = await open()
  const opened: LocalDriver[] = [driver]
  return {
    driver,
    reopen: async () => {
      const again = await open()
      opened.push(again)
      return again
    },
    close: async () => {
      for (const d of opened) await d.close()
      removeCgroupParent(driver.cgroups, cgroupParent)
      rmSync(stateDir, { recursive: true, force: true })
    },
  }
}

export interface ServerOptions {
  home?: string
  format?: UpstreamFormat
  sandbox?: Partial<SandboxConfig>
  models?: ServerConfig['models']
  tiers?: ServerConfig['tiers']
}

/** A real server over a real SQLite store in `home`, code execution on the given driver. */
export class CodeExecutionServer {
  private constructor(
    readonly server: RunningServer,
    readonly upstream: ScriptedUpstream,
    readonly store: Store,
    readonly home: string,
    readonly errors: string[],
  ) {}

  /** With a null driver the server opens its own from `options.sandbox`, as in production. */
  static async start(
    driver: LocalDriver | null,
    options: ServerOptions = {},
  ): Promise<CodeExecutionServer> {
    const home = options.home ?? mkdtempSync(join(tmpdir(), 'syntic-ce-home-'))
    const upstream = await ScriptedUpstream.start()
    const format = options.format ?? 'openai'
    const config: ServerConfig = {
      host: '127.0.0.1',
      port: 0,
      home,
      models: options.models ?? {},
      bodyLimitBytes: 32 * 1024 * 1024,
      requestLog: false,
      upstream: {
        url: format === 'openai' ? upstream.openaiUrl : upstream.anthropicUrl,
        apiKey: 'sk-upstream',
        format,
        timeoutMs: 30_000,
        connectTimeoutMs: 2_000,
      },
      sandbox: {
        driver: 'local',
        maxSandboxes: 20,
        poolSize: 0,
        idleMs: 30 * 60 * 1000,
        maxLifetimeMs: 24 * 3600 * 1000,
        reapIntervalMs: 60_000,
        ...options.sandbox,
      },
      ...(options.tiers ? { tiers: options.tiers } : {}),
    }
    const errors: string[] = []
    const server = await startServer(config, {
      errorLog: { write: (line: string) => errors.push(line) },
      ...(driver ? { sandbox: driver } : {}),
    })
    const store = await openStore({ home })
    return new CodeExecutionServer(server, upstream, store, home, errors)
  }

  async key(org = 'acme', workspace = 'research'): Promise<string> {
    return (await this.store.createKey({ org, workspace })).key
  }

  openai(key: string): OpenAI {
    return new OpenAI({ baseURL: `${this.server.url}/v1`, apiKey: key, maxRetries: 0 })
  }

  anthropic(key: string): Anthropic {
    return new Anthropic({ baseURL: this.server.url, apiKey: key, maxRetries: 0 })
  }

  post(path: string, key: string, body: unknown): Promise<Response> {
    return fetch(`${this.server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  }

  async upload(key: string, filename: string, content: string): Promise<string> {
    const form = new FormData()
    form.append('purpose', 'code_input')
    form.append('file', new Blob([content]), filename)
    const response = await fetch(`${this.server.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    })
    if (response.status !== 200 && response.status !== 201) {
      throw new Error(`upload failed: ${response.status} ${await response.text()}`)
    }
    return ((await response.json()) as { id: string }).id
  }

  async download(key: string, id: string): Promise<Buffer> {
    const response = await fetch(`${this.server.url}/v1/files/${id}/content`, {
      headers: { authorization: `Bearer ${key}` },
    })
    if (response.status !== 200) throw new Error(`download failed: ${response.status}`)
    return Buffer.from(await response.arrayBuffer())
  }

  async close(keepHome = false): Promise<void> {
    await this.server.close()
    await this.upstream.close()
    await this.store.close()
    if (!keepHome) rmSync(this.home, { recursive: true, force: true })
    if (this.errors.length > 0) {
      throw new Error(`the server logged unexpected errors:\n${this.errors.join('')}`)
    }
  }
}
