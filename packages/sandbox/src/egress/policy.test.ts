import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  decideEgress,
  MAX_ALLOW_ENTRIES,
  parseHostRule,
  parseMirror,
  resolveEgress,
} from './policy.js'

describe('egress policy', () => {
  it('parses hosts, wildcards, ports and IP literals', () => {
    assert.deepEqual(parseHostRule('PyPI.org.'), { host: 'pypi.org', wildcard: false, port: null })
    assert.deepEqual(parseHostRule('*.example.com'), {
      host: 'example.com',
      wildcard: true,
      port: null,
    })
    assert.deepEqual(parseHostRule('files.example.com:8443'), {
      host: 'files.example.com',
      wildcard: false,
      port: 8443,
    })
    assert.deepEqual(parseHostRule('[2606:4700::1]:443'), {
      host: '2606:4700::1',
      wildcard: false,
      port: 443,
    })
    assert.deepEqual(parseHostRule('2606:4700::1'), {
      host: '2606:4700::1',
      wildcard: false,
      port: null,
    })
  })

  it('rejects entries that are not hosts', () => {
    for (const entry of [
      '',
      '*',
      '*.1.2.3.4',
      'a b.com',
      'http://pypi.org',
      'pypi.org:0',
      'pypi.org:70000',
      'pypi.org:',
      'pypi.org/simple',
      'exa$mple.com',
      `${'a'.repeat(64)}.com`,
      'x'.repeat(400),
      '[not-ipv6]:443',
      'é.com',
    ]) {
      assert.throws(() => parseHostRule(entry), TypeError, entry)
    }
  })

  it('has no network without an allowlist or a mirror', () => {
    assert.equal(resolveEgress(undefined, null), null)
    assert.equal(resolveEgress({ allow: [] }, null), null)
    assert.equal(resolveEgress({ allow: [], mirror: null }, { url: 'http://m.test/simple/' }), null)
  })

  it('turns a mirror alone into egress to the mirror only', () => {
    const policy = resolveEgress(undefined, { url: 'http://mirror.test:3141/root/pypi/+simple/' })
    assert.ok(policy)
    assert.deepEqual(policy.rules, [])
    assert.deepEqual(decideEgress(policy, 'mirror.test', 3141, 'http'), {
      allowed: true,
      via: 'mirror',
    })
    assert.equal(decideEgress(policy, 'mirror.test', 80, 'http').allowed, false)
    assert.equal(decideEgress(policy, 'pypi.org', 443, 'connect').allowed, false)
  })

  it('matches hosts, subdomains and ports exactly', () => {
    const policy = resolveEgress({ allow: ['pypi.org', '*.example.com', 'api.test:8080'] }, null)
    assert.ok(policy)
    const allowed = (host: string, port: number, method: 'connect' | 'http') =>
      decideEgress(policy, host, port, method).allowed
    assert.equal(allowed('pypi.org', 443, 'connect'), true)
    assert.equal(allowed('pypi.org', 80, 'http'), true)
    assert.equal(allowed('pypi.org', 22, 'connect'), false)
    assert.equal(allowed('pypi.org', 80, 'connect'), false)
    assert.equal(allowed('evilpypi.org', 443, 'connect'), false)
    assert.equal(allowed('pypi.org.evil.com', 443, 'connect'), false)
    assert.equal(allowed('a.b.example.com', 443, 'connect'), true)
    assert.equal(allowed('example.com', 443, 'connect'), false)
    assert.equal(allowed('badexample.com', 443, 'connect'), false)
    assert.equal(allowed('api.test', 8080, 'connect'), true)
    assert.equal(allowed('api.test', 443, 'connect'), false)
  })

  it('rejects hostile create options', () => {
    const bad: unknown[] = [
      'pypi.org',
      { allow: 'pypi.org' },
      { allow: [42] },
      { allow: Array(MAX_ALLOW_ENTRIES + 1).fill('a.com') },
      { mirror: { url: 'ftp://m.test/' } },
      { mirror: { url: 'file:///etc/passwd' } },
      { mirror: { url: 'not a url' } },
      { mirror: { url: `http://m.test/${'x'.repeat(3000)}` } },
      { mirror: 'http://m.test/' },
    ]
    for (const options of bad) {
      assert.throws(() => resolveEgress(options as never, null), TypeError, JSON.stringify(options))
    }
  })

  it('reads the mirror port from the scheme', () => {
    assert.deepEqual(parseMirror({ url: 'https://pypi.internal/simple/' }), {
      url: 'https://pypi.internal/simple/',
      host: 'pypi.internal',
      port: 443,
      insecure: false,
    })
    assert.equal(parseMirror({ url: 'http://10.0.0.5/simple/' }).port, 80)
  })
})
