import type { RunningServer } from '@syntic/server'
import { ConfigError, loadConfig } from '@syntic/server/config'
import { Command } from 'commander'

/**
 * `syntic serve`: the API server, configured by the config file and the environment (see the
 * configuration reference). Prints one line once listening and stops cleanly on SIGINT/SIGTERM.
 */
export function serveCommand(): Command {
  return new Command('serve')
    .description('run the API server (settings from the config file and the environment)')
    .action(async () => {
      let server: RunningServer
      try {
        const config = loadConfig()
        // Loaded here, not at the top: every other syntic command starts without the HTTP stack.
        const { startServer } = await import('@syntic/server')
        server = await startServer(config)
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        process.stderr.write(
          `syntic: ${error instanceof ConfigError ? 'configuration: ' : ''}${message}\n`,
        )
        process.exit(error instanceof ConfigError ? 2 : 1)
      }
      process.stderr.write(`syntic listening on ${server.url}\n`)
      let stopping = false
      const stop = () => {
        if (stopping) return
        stopping = true
        server.close().then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`syntic: shutdown failed: ${String(error)}\n`)
            process.exit(1)
          },
        )
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
}
