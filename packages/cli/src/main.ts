import { Command } from 'commander'
import { codeCommand } from './commands/code.js'
import { keysCommand } from './commands/keys.js'
import { orgsCommand } from './commands/orgs.js'
import { sandboxCommand } from './commands/sandbox.js'
import { serveCommand } from './commands/serve.js'
import { toolCommand } from './commands/tool.js'
import { toolSearchCommand } from './commands/tool-search.js'

const program = new Command()
  .name('syntic')
  .description('Syntic: self-hostable tool use for language models')
  .version('0.1.0')
  .showHelpAfterError()
  .addCommand(serveCommand())
  .addCommand(keysCommand())
  .addCommand(orgsCommand())
  .addCommand(toolCommand())
  .addCommand(codeCommand())
  .addCommand(toolSearchCommand())
  .addCommand(sandboxCommand())

await program.parseAsync(process.argv)
