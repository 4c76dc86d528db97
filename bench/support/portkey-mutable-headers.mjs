// Preloaded into the Portkey gateway's process only (`node --import`). Portkey 1.15.2 appends its
// x-portkey-* headers to the Response that fetch returned; beside the @hono/node-server 1.19 that
// npm installs with it, those headers stay immutable and every streamed chat completion fails with
// `TypeError: immutable` (Portkey-AI/gateway#1389). Copying fetch's response into one with its own
// headers is the fix proposed upstream (#1390) and costs Portkey one object per request.
const NativeResponse = globalThis.Response
const upstreamFetch = globalThis.fetch

globalThis.fetch = async (input, init) => {
  const response = await upstreamFetch(input, init)
  return new NativeResponse(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: new Headers(response.headers),
  })
}
