export { type EditorOptions, TextEditorTool } from './editor.js'
