import { loadConfig, type ServerConfig } from '@syntic/server/config'
// The store alone, not the whole server: commands that only read or write it start in milliseconds.
import { type OpenStoreOptions, openStore, type Store } from '@syntic/server/store'
import { CommandFailure, type ConfigIo, messageOf } from './command-io.js'

/**
 * Runs `work` on the server's store, found exactly as the server finds it (config file and
 * environment), and closes it after. `what` names the store in the error when the config or the
 * store cannot be read.
 */
export async function withServerStore(
  io: ConfigIo,
  what: string,
  work: (store: Store, config: ServerConfig) => Promise<void>,
): Promise<void> {
  let config: ServerConfig
  let store: Store
  try {
    config = loadConfig(io.env, io.cwd())
    const { home, databaseUrl } = config
    const location: OpenStoreOptions = databaseUrl ? { home, databaseUrl } : { home }
    store = await openStore(location)
  } catch (error) {
    throw new CommandFailure(`cannot open the ${what}: ${messageOf(error)}`, 1)
  }
  try {
    await work(store, config)
  } finally {
    await store.close()
  }
}
