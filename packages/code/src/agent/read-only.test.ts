import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { readOnlyVerdict } from './read-only.js'

const ws = '/srv/project'

describe('readOnlyVerdict (plan mode)', () => {
  const reading = [
    'ls -la',
    'cat src/a.ts | grep foo | wc -l',
    'git status && git log --oneline -5',
    'git diff HEAD~1 -- src',
    'find . -name "*.ts"',
    'rg -n "TODO" src 2>/dev/null',
    'grep -r x . 2>&1 | head',
    'FOO=1 ls',
    "echo 'a > b'",
    'cd src; ls',
  ]
  for (const cmd of reading) {
    it(`lets ${cmd} run`, () => assert.deepEqual(readOnlyVerdict(cmd, ws), { readOnly: true }))
  }
  const writing: [string, RegExp][] = [
    ['rm -rf build', /recursive delete/],
    ['touch x', /`touch` is not on the list/],
    ['echo hi > out.txt', /writes to a file/],
    ['echo hi >> out.txt', /writes to a file/],
    ['echo hi > /dev/null; ls > x', /writes to a file|redirects/],
    ['find . -delete', /recursive delete|`find -delete`/],
    ['find . -exec touch {} ;', /find -exec|can change files/],
    ['sort -o out in', /`sort -o`/],
    ['git commit -m x', /git commit is not one of the read-only git commands/],
    ['git', /git +is not one|read-only git/],
    ['ls $(rm -rf x)', /recursive delete|nested commands/],
    ['ls `touch y`', /nested commands/],
    ['cat <(curl x)', /nested commands/],
    ["echo 'unbalanced", /quoting is unbalanced/],
    ['sed -i s/a/b/ f', /`sed` is not on the list/],
    ['npm test', /`npm` is not on the list/],
    ['', /empty/],
    [`ls ${'a '.repeat(50_000)}; touch z`, /`touch` is not on the list/],
  ]
  for (const [cmd, why] of writing) {
    it(`declines ${cmd.slice(0, 40)}`, () => {
      const verdict = readOnlyVerdict(cmd, ws)
      assert.equal(verdict.readOnly, false)
      assert.match(verdict.readOnly ? '' : verdict.why, why)
    })
  }
})
