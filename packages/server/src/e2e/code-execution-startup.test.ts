import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createApp } from '../app.js'
import type { ServerConfig } from '../config.js'
import { openStore } from '../store/open.js'
import { openDriver } from './code-execution-setup.js'

test('a server that fails to start after its sandbox pool started leaves no sandbox behind', async () => {
  const sandbox = await openDriver()
  const home = mkdtempSync(join(tmpdir(), 'syntic-startup-'))
  const store = await openStore({ home })
  const config: ServerConfig = {
    host: '127.0.0.1',
    port: 0,
    home,
    models: {},
    // Fastify refuses this, after the container runtime (and its warm pool) opened.
    bodyLimitBytes: -1,
    requestLog: false,
    sandbox: {
      driver: 'local',
      maxSandboxes: 4,
      poolSize: 2,
      idleMs: 60_000,
      maxLifetimeMs: 120_000,
      reapIntervalMs: 60_000,
    },
  }
  try {
    await assert.rejects(createApp(config, { store, sandbox: sandbox.driver }))
    assert.deepEqual(await sandbox.driver.list(), [])
  } finally {
    await store.close()
    await sandbox.close()
    rmSync(home, { recursive: true, force: true })
  }
})
