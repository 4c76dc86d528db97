export { classifyCommand } from './classifier.js'
export { type ConfirmRequest, type ShellOptions, ShellTool } from './shell.js'
