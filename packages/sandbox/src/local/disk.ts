import { execFile } from 'node:child_process'
import { chmod, chown, mkdir, open, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'

const exec = promisify(execFile)

/**
 * A sandbox's writable area: a sparse ext4 image file of the disk limit's size, loop-mounted. The
 * kernel enforces the limit (ENOSPC) and the sandbox's files live in one file, removed at once.
 * No journal: the disk dies with its sandbox, crash consistency buys nothing.
 */
export const DISK_IMAGE = 'disk.img'
export const DISK_MOUNT = 'disk'
/** Folders of the disk as the sandbox sees them: the disk's `mnt` is `/mnt`, its `tmp` is `/tmp`. */
export const DISK_FOLDERS = ['mnt', 'mnt/input', 'mnt/output', 'mnt/home', 'tmp'] as const

export async function createDisk(dir: string, bytes: number, uid: number): Promise<string> {
  const image = join(dir, DISK_IMAGE)
  const mountpoint = join(dir, DISK_MOUNT)
  const file = await open(image, 'wx', 0o600)
  try {
    await file.truncate(bytes)
  } finally {
    await file.close()
  }
  await exec('mkfs.ext4', [
    '-q',
    '-F',
    '-O',
    '^has_journal',
    '-m',
    '0',
    '-E',
    `lazy_itable_init=1,nodiscard,root_owner=${uid}:${uid}`,
    image,
  ])
  await mkdir(mountpoint, { mode: 0o700 })
  await exec('mount', ['-t', 'ext4', '-o', 'loop,nosuid,nodev,noatime', image, mountpoint])
  for (const folder of DISK_FOLDERS) {
    const path = join(mountpoint, folder)
    await mkdir(path, { mode: folder === 'tmp' ? 0o1777 : 0o755 })
    await chown(path, uid, uid)
  }
  await chown(mountpoint, uid, uid)
  await chmod(mountpoint, 0o700)
  return mountpoint
}

/** Unmounts (the loop device goes with it) and deletes the image; safe to repeat. */
export async function removeDisk(dir: string): Promise<void> {
  const mountpoint = join(dir, DISK_MOUNT)
  try {
    await exec('umount', [mountpoint])
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '')
    if (!/not mounted|no mount point|No such file/i.test(stderr)) {
      // Still busy a moment after its processes died: detach now, the kernel finishes later.
      await exec('umount', ['-l', mountpoint]).catch(() => undefined)
    }
  }
  await rm(dir, { recursive: true, force: true })
}
