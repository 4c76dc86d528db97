import {
  CODE_EXECUTION_MAX_RUNS_DEFAULT,
  type CodeExecutionToolEntry,
  type ContainerInfo,
  INCLUDE_CODE_EXECUTION_CODE,
  type ServerToolUsage,
} from '@syntic/protocol'
import type { ContainerService } from '../../containers/container-service.js'
import { fileNotFound, invalidFilePurpose, sandboxUnavailable } from '../../containers/errors.js'
import { copyInputs, OutputFiles } from '../../containers/files-in-out.js'
import type { FileService } from '../../files/file-service.js'
import { toolDisabled } from '../../orgs/code-execution-errors.js'
import type { OrgSettingsReader } from '../../orgs/org-settings-reader.js'
import type { ContainerRecord, FileRecord, Scope } from '../../store/port.js'
import type { UsageLedger } from '../../usage/usage-ledger.js'
import { CodeExecutionTool } from './code-execution-tool.js'

export interface CodeExecutionDeps {
  /** Null when the server has no working sandbox driver; `unavailable` says why. */
  containers: ContainerService | null
  unavailable?: string
  files: FileService
  orgSettings: OrgSettingsReader
  ledger: UsageLedger
}

export interface CodeExecutionRequest {
  entry: CodeExecutionToolEntry
  /** Where the entry is in `tools` (`tools[2]`), for error params. */
  at: string
  include: readonly string[]
  scope: Scope
  requestId: string
}

/** What the response carries beside the message, once the request's runs are billed. */
export interface CodeExecutionSettlement {
  container: ContainerInfo
  serverToolUse: ServerToolUsage
}

export interface CodeExecutionSession {
  tool: CodeExecutionTool
  /** Bills the runs (once per request) and gives the response's container and seconds. */
  settle(): Promise<CodeExecutionSettlement>
  /** Lets the reaper see the container again. */
  release(): void
}

/**
 * Everything the spec checks before the first upstream call, in order: the organisation allows
 * code execution (403), the server can run it (503), every file exists (404) and is `code_input`
 * (400), then the container:
 * a live one of the workspace (404), or room for a new one (429, 503). Only then is a container
 * started and the files copied into it.
 */
export async function prepareCodeExecution(
  request: CodeExecutionRequest,
  deps: CodeExecutionDeps,
): Promise<CodeExecutionSession> {
  const { entry, at, scope } = request
  const settings = await deps.orgSettings.get(scope.org)
  if (!settings.codeExecution) throw toolDisabled()
  const containers = deps.containers
  if (containers === null) throw sandboxUnavailable(deps.unavailable ?? 'no sandbox driver')
  const inputs = await inputFiles(entry.files ?? [], `${at}.files`, scope, deps.files)
  let container: ContainerRecord
  let created = false
  if (typeof entry.container === 'object') {
    container = await containers.find(scope, entry.container.id, `${at}.container.id`)
  } else {
    await containers.checkCapacity(settings)
    container = await containers.create(scope, settings)
    created = true
  }
  const release = containers.hold(container.id)
  const outputs = new OutputFiles(
    containers.driver,
    container.sandboxId,
    deps.files,
    scope,
    container.id,
  )
  try {
    if (!created) {
      container = await containers.touch(container)
      await outputs.markExisting()
    }
    await copyInputs(containers.driver, container.sandboxId, deps.files, scope, inputs)
  } catch (error) {
    release()
    if (created) await containers.remove(container).catch(() => undefined)
    throw error
  }
  const tool = new CodeExecutionTool({
    containers,
    container,
    outputs,
    maxRuns: entry.max_runs ?? CODE_EXECUTION_MAX_RUNS_DEFAULT,
    includeCode: request.include.includes(INCLUDE_CODE_EXECUTION_CODE),
    inputFiles: inputs.map((f) => f.filename),
    runTimeoutMs: containers.runTimeoutMs,
    network: settings.egressAllowlist.length > 0,
    packageMirror: containers.packageMirror !== null,
  })
  let settled: Promise<CodeExecutionSettlement> | undefined
  return {
    tool,
    release,
    settle() {
      settled ??= (async () => {
        const { seconds } = await deps.ledger.recordCodeExecution({
          ...scope,
          requestId: request.requestId,
          runMs: tool.runMs,
        })
        return {
          container: {
            id: tool.container.id,
            expires_at: Math.floor(Date.parse(tool.container.expiresAt) / 1000),
          },
          serverToolUse: { code_execution_seconds: seconds },
        }
      })()
      return settled
    },
  }
}

/** The request's files, each once, all checked before any container starts. */
async function inputFiles(
  ids: readonly string[],
  param: string,
  scope: Scope,
  files: FileService,
): Promise<FileRecord[]> {
  const found: FileRecord[] = []
  const seen = new Set<string>()
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!
    if (seen.has(id)) continue
    seen.add(id)
    const file = await files.get(scope, id)
    if (file === null) throw fileNotFound(`${param}[${i}]`)
    if (file.purpose !== 'code_input') throw invalidFilePurpose(`${param}[${i}]`, file.purpose)
    found.push(file)
  }
  return found
}
