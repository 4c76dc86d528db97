import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { hostAddresses, isForbiddenAddress, v6Bytes } from './addresses.js'

describe('forbidden addresses', () => {
  const none = new Set<string>()

  it('refuses private, loopback, link-local, metadata and reserved IPv4', () => {
    for (const address of [
      '0.0.0.0',
      '10.1.2.3',
      '100.64.0.1',
      '127.0.0.1',
      '127.255.255.254',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '192.0.2.2',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      assert.equal(isForbiddenAddress(address, none), true, address)
    }
  })

  it('refuses IPv6 loopback, ULA, link-local, multicast and mapped private IPv4', () => {
    for (const address of [
      '::',
      '::1',
      'fd00::2',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '64:ff9b::a9fe:a9fe',
      '::127.0.0.1',
      '2001:db8::1',
      '2002:7f00:1::',
    ]) {
      assert.equal(isForbiddenAddress(address, none), true, address)
    }
  })

  it('lets public addresses through', () => {
    for (const address of [
      '1.1.1.1',
      '151.101.0.223',
      '172.32.0.1',
      '2a04:4e42::223',
      '::ffff:1.1.1.1',
    ]) {
      assert.equal(isForbiddenAddress(address, none), false, address)
    }
  })

  it('refuses the host own addresses and anything that is not an IP', () => {
    assert.equal(isForbiddenAddress('1.1.1.1', new Set(['1.1.1.1'])), true)
    assert.equal(isForbiddenAddress('localhost', none), true)
    assert.equal(isForbiddenAddress('2130706433', none), true)
    assert.ok(hostAddresses().has('127.0.0.1'))
  })

  it('reads every IPv6 form', () => {
    assert.deepEqual(v6Bytes('::1'), [...Array(15).fill(0), 1])
    assert.deepEqual(v6Bytes('::ffff:1.2.3.4').slice(10), [255, 255, 1, 2, 3, 4])
    assert.deepEqual(v6Bytes('1:2:3:4:5:6:7:8').slice(0, 4), [0, 1, 0, 2])
  })
})
