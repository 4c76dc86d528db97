// The cgroup v2 path runs on hosts with the unified hierarchy; this machine mounts v1 controllers,
// so the v2 writes are checked here against a folder laid out as a v2 root (real files, the same
// names the kernel uses). The kernel's enforcement of v1 limits is tested in the attack suites.
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { DEFAULT_LIMITS } from '../limits.js'
import { detectCgroups, listCgroups, SandboxCgroup } from './cgroups.js'

function v2Root(controllers: string): { root: string; mounts: string; done: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'syntic-cgroup2-'))
  writeFileSync(join(root, 'cgroup.controllers'), controllers)
  return {
    root,
    mounts: `cgroup2 ${root} cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n`,
    done: () => rmSync(root, { recursive: true, force: true }),
  }
}

test('a unified hierarchy with cpu, memory and pids is used as v2', () => {
  const host = v2Root('cpuset cpu io memory hugetlb pids rdma misc\n')
  try {
    assert.deepEqual(detectCgroups(host.mounts), { version: 2, root: host.root })
  } finally {
    host.done()
  }
})

test('a unified hierarchy without the controllers falls back to v1 mounts, or says what is missing', () => {
  const host = v2Root('')
  const v1 = ['cpu', 'memory', 'pids', 'freezer']
    .map((c) => `cgroup /sys/fs/cgroup/${c} cgroup rw,nosuid,nodev,noexec,relatime,${c} 0 0`)
    .join('\n')
  try {
    assert.deepEqual(detectCgroups(`${host.mounts}${v1}\n`), {
      version: 1,
      controllers: {
        cpu: '/sys/fs/cgroup/cpu',
        memory: '/sys/fs/cgroup/memory',
        pids: '/sys/fs/cgroup/pids',
        freezer: '/sys/fs/cgroup/freezer',
      },
    })
    assert.throws(() => detectCgroups(host.mounts), /no usable cgroups/)
  } finally {
    host.done()
  }
})

test('on v2 a sandbox group gets the controllers enabled above it and the default limits', async () => {
  const host = v2Root('cpu memory pids\n')
  try {
    const layout = detectCgroups(host.mounts)
    const group = await SandboxCgroup.create(layout, 'syntic-test/fleet', 'sbx-1', DEFAULT_LIMITS)
    const dir = join(host.root, 'syntic-test', 'fleet', 'sbx-1')
    assert.deepEqual(group.procsFiles, [join(dir, 'cgroup.procs')])
    const read = (file: string) => readFileSync(join(dir, file), 'utf8')
    assert.equal(read('cpu.max'), `${DEFAULT_LIMITS.cpus * 100_000} 100000`)
    assert.equal(read('memory.max'), String(DEFAULT_LIMITS.memoryBytes))
    assert.equal(read('memory.swap.max'), '0')
    assert.equal(read('pids.max'), String(DEFAULT_LIMITS.pidsMax))
    for (const above of ['', 'syntic-test', 'syntic-test/fleet']) {
      const control = readFileSync(join(host.root, above, 'cgroup.subtree_control'), 'utf8')
      assert.equal(control, '+cpu +memory +pids')
    }
    assert.deepEqual(await listCgroups(layout, 'syntic-test/fleet'), ['sbx-1'])
  } finally {
    host.done()
  }
})
