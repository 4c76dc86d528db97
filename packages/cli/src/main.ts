import { Command } from 'commander'
import { keysCommand } from './commands/keys.js'
import { serveCommand } from './commands/serve.js'
import { toolCommand } from './commands/tool.js'

const program = new Command()
  .name('syntic')
  .description('Syntic: self-hostable tool use for language models')
  .version('0.1.0')
  .showHelpAfterError()
  .addCommand(serveCommand())
  .addCommand(keysCommand())
  .addCommand(toolCommand())

await program.parseAsync(process.argv)
