import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ProxyRequestError, parseProxyRequest } from './request-head.js'

describe('proxy request head', () => {
  it('reads CONNECT targets', () => {
    assert.deepEqual(parseProxyRequest('CONNECT PyPI.org:443 HTTP/1.1\r\nHost: pypi.org:443'), {
      kind: 'connect',
      host: 'pypi.org',
      port: 443,
    })
    assert.deepEqual(parseProxyRequest('CONNECT [::1]:443 HTTP/1.1'), {
      kind: 'connect',
      host: '::1',
      port: 443,
    })
  })

  it('rewrites absolute http requests to origin form with Connection: close', () => {
    const request = parseProxyRequest(
      'GET http://mirror.test:8080/simple/x/?a=1 HTTP/1.1\r\nHost: mirror.test:8080\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: x\r\nConnection: keep-alive\r\nAccept: */*',
    )
    assert.equal(request.kind, 'http')
    assert.equal(request.host, 'mirror.test')
    assert.equal(request.port, 8080)
    assert.equal(
      request.kind === 'http' && request.head,
      'GET /simple/x/?a=1 HTTP/1.1\r\nHost: mirror.test:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n',
    )
  })

  it('normalises hosts the way they will be connected to', () => {
    const request = parseProxyRequest('GET http://0x7f.1/ HTTP/1.1')
    assert.equal(request.host, '127.0.0.1')
  })

  it('rejects malformed and hostile heads', () => {
    for (const head of [
      '',
      'GET',
      'get http://a.test/ HTTP/1.1',
      'GET http://a.test/ HTTP/2.0',
      'GET http://a.test/  HTTP/1.1',
      'CONNECT a.test HTTP/1.1',
      'CONNECT a.test:99999 HTTP/1.1',
      'CONNECT a.test:443:1 HTTP/1.1',
      'CONNECT user@a.test:443 HTTP/1.1',
      'GET http://a.test/ HTTP/1.1\r\n folded: header',
      'GET http://a.test/ HTTP/1.1\r\nNo colon',
      'GET http://a.test/ HTTP/1.1\r\nBad Name: x',
      'GET http://a.test/ HTTP/1.1\r\nX: a\nInjected: b',
      'GET http://a.test/ HTTP/1.1\r\nX: a\0',
      'GET http://[zz]/ HTTP/1.1',
    ]) {
      assert.throws(() => parseProxyRequest(head), ProxyRequestError, JSON.stringify(head))
    }
  })

  it('refuses origin-form, https and other schemes with 405', () => {
    for (const head of [
      'GET / HTTP/1.1',
      'GET https://a.test/ HTTP/1.1',
      'GET ftp://a.test/ HTTP/1.1',
    ]) {
      assert.throws(
        () => parseProxyRequest(head),
        (error: unknown) => error instanceof ProxyRequestError && error.status === 405,
      )
    }
  })
})
