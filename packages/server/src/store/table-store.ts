import { ContainersTable } from './containers-table.js'
import { FilesTable } from './files-table.js'
import { OrgSettingsTable } from './org-settings-table.js'
import type {
  ContainerRecord,
  FilePage,
  FileRecord,
  NewContainer,
  NewFile,
  OrgSettings,
  OrgSettingsPatch,
  Scope,
  UsageEntry,
  UsageLine,
  UsageTotal,
} from './port.js'
import type { SqlRunner } from './sql-runner.js'
import { UsageTable } from './usage-table.js'

/**
 * The part of the Store that both adapters share: the tables written once over a SqlRunner (see
 * sql-runner.ts). An adapter extends it with its runner and adds migrations and keys.
 */
export abstract class TableStore {
  private readonly files: FilesTable
  private readonly containers: ContainersTable
  private readonly usage: UsageTable
  private readonly orgSettings: OrgSettingsTable

  protected constructor(runner: SqlRunner) {
    this.files = new FilesTable(runner)
    this.containers = new ContainersTable(runner)
    this.usage = new UsageTable(runner)
    this.orgSettings = new OrgSettingsTable(runner)
  }

  createFile(file: NewFile): Promise<FileRecord> {
    return this.files.create(file)
  }

  getFile(scope: Scope, id: string): Promise<FileRecord | null> {
    return this.files.get(scope, id)
  }

  listFiles(scope: Scope, page: { limit: number; after?: string }): Promise<FilePage> {
    return this.files.list(scope, page)
  }

  deleteFile(scope: Scope, id: string): Promise<FileRecord | null> {
    return this.files.delete(scope, id)
  }

  createContainer(container: NewContainer): Promise<ContainerRecord | null> {
    return this.containers.create(container)
  }

  getContainer(scope: Scope, id: string, now: string): Promise<ContainerRecord | null> {
    return this.containers.get(scope, id, now)
  }

  touchContainer(
    id: string,
    times: { lastUsedAt: string; expiresAt: string },
  ): Promise<ContainerRecord | null> {
    return this.containers.touch(id, times)
  }

  countLiveContainers(org: string, now: string): Promise<number> {
    return this.containers.countLive(org, now)
  }

  listLiveContainers(): Promise<ContainerRecord[]> {
    return this.containers.listLive()
  }

  markContainerRemoved(id: string, removedAt: string): Promise<boolean> {
    return this.containers.markRemoved(id, removedAt)
  }

  recordUsage(entry: UsageEntry): Promise<{ recorded: boolean; entry: UsageEntry }> {
    return this.usage.record(entry)
  }

  usageTotals(
    org: string,
    line: UsageLine,
    range: { from: string; to: string },
  ): Promise<UsageTotal[]> {
    return this.usage.totals(org, line, range)
  }

  getOrgSettings(org: string): Promise<OrgSettings | null> {
    return this.orgSettings.get(org)
  }

  updateOrgSettings(org: string, patch: OrgSettingsPatch): Promise<OrgSettings> {
    return this.orgSettings.update(org, patch)
  }
}
