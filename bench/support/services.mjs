// The paths of the gateway benchmark, each a child process tree: the fast upstream, the
// Portkey gateway routed to it, and the Syntic server pointed at it. A path is
// `{ name, label, origin, path, headers, stop }`: where to send the chat completion and with what.
// A fourth path, a bare pass-through proxy, shows what the hop alone costs.
import { rmSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { UPSTREAM_API_KEY } from './chat-fixture.mjs'
import { firstLine, freePort, runCommand, startChild, waitUntil } from './child-process.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const repoRoot = join(here, '..', '..')
const chatPath = '/v1/chat/completions'
const json = { 'content-type': 'application/json' }
// Gateways run as they would in production; Portkey only drops its log viewer UI with it.
const productionEnv = { NODE_ENV: 'production' }

async function answersOk(url) {
  const { statusCode, body } = await request(url)
  await body.dump()
  return statusCode === 200
}

/** The scripted upstream in its own process; `direct` is the path straight to it. */
export async function startUpstream() {
  const started = startChild(process.execPath, [join(here, 'fast-upstream.mjs')])
  try {
    const { port } = JSON.parse(await firstLine(started))
    const origin = `http://127.0.0.1:${port}`
    return {
      name: 'direct',
      label: 'direct',
      origin,
      baseUrl: `${origin}/v1`,
      path: chatPath,
      headers: { ...json, authorization: `Bearer ${UPSTREAM_API_KEY}` },
      stop: started.stop,
    }
  } catch (error) {
    await started.stop()
    throw new Error(`fast upstream: ${error.message}`)
  }
}

/** The bare pass-through proxy (support/bare-proxy.mjs) in front of the upstream: the floor. */
export async function startBareProxy(upstream) {
  const started = startChild(process.execPath, [join(here, 'bare-proxy.mjs')], {
    env: { UPSTREAM: upstream.origin },
  })
  try {
    const { port } = JSON.parse(await firstLine(started))
    return {
      name: 'floor',
      label: 'bare node proxy (floor)',
      origin: `http://127.0.0.1:${port}`,
      path: chatPath,
      headers: upstream.headers,
      stop: started.stop,
    }
  } catch (error) {
    await started.stop()
    throw new Error(`bare proxy: ${error.message}`)
  }
}

/**
 * Portkey's open-source gateway (`@portkey-ai/gateway`, its Node server `build/start-server.js`)
 * routed to the upstream the documented way for an OpenAI-compatible host: provider `openai` with
 * `x-portkey-custom-host`, the upstream key passed through in Authorization.
 */
export async function startPortkey(upstream) {
  const require = createRequire(import.meta.url)
  const packageDir = dirname(require.resolve('@portkey-ai/gateway/package.json'))
  const { version } = require('@portkey-ai/gateway/package.json')
  const port = await freePort()
  const started = startChild(
    process.execPath,
    [
      '--import',
      join(here, 'portkey-mutable-headers.mjs'),
      join(packageDir, 'build', 'start-server.js'),
      `--port=${port}`,
      '--headless',
    ],
    { cwd: packageDir, env: productionEnv },
  )
  const origin = `http://127.0.0.1:${port}`
  try {
    await waitUntil(() => answersOk(`${origin}/`), 'the Portkey gateway')
  } catch (error) {
    await started.stop()
    throw new Error(`${error.message}\n${started.stderr.text}`)
  }
  return {
    name: 'portkey',
    label: `portkey ${version}`,
    origin,
    path: chatPath,
    headers: {
      ...upstream.headers,
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': upstream.baseUrl,
    },
    stop: started.stop,
  }
}

/**
 * The Syntic server (`syntic serve`) with a fresh SYNTIC_HOME and a key made by `syntic keys
 * create`, pointed at the upstream. Rejects with the server's output when it cannot start.
 */
export async function startSyntic(upstream) {
  const cli = join(repoRoot, 'packages', 'cli', 'bin', 'syntic.js')
  const home = await mkdtemp(join(tmpdir(), 'syntic-gateway-bench-'))
  // Also on an interrupted run, which exits without reaching any finally.
  const removeHome = () => rmSync(home, { recursive: true, force: true })
  process.once('exit', removeHome)
  const forget = () => {
    process.off('exit', removeHome)
    removeHome()
  }
  const env = {
    ...productionEnv,
    SYNTIC_HOME: home,
    SYNTIC_UPSTREAM_URL: upstream.baseUrl,
    SYNTIC_UPSTREAM_API_KEY: UPSTREAM_API_KEY,
    SYNTIC_REQUEST_LOG: '0',
  }
  let started
  try {
    const printed = await runCommand(process.execPath, [cli, 'keys', 'create', '--org', 'bench'], {
      cwd: home,
      env,
    })
    const key = printed.trim().split('\n').at(-1)?.trim()
    if (!key) throw new Error('`syntic keys create` printed no key')
    const port = await freePort()
    started = startChild(process.execPath, [cli, 'serve'], {
      cwd: home,
      env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
    })
    const origin = `http://127.0.0.1:${port}`
    const exited = started.exited.then((code) => {
      throw new Error(`syntic serve exited with ${code}: ${started.stderr.text}`)
    })
    exited.catch(() => {})
    await Promise.race([waitUntil(() => answersOk(`${origin}/healthz`), 'syntic serve'), exited])
    const stop = started.stop
    return {
      name: 'syntic',
      label: 'syntic',
      origin,
      path: chatPath,
      headers: { ...json, authorization: `Bearer ${key}` },
      async stop() {
        await stop()
        forget()
      },
    }
  } catch (error) {
    await started?.stop()
    forget()
    throw error
  }
}
