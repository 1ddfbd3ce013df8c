/**
 * Request bodies are counted while they stream so that one huge POST cannot make the server
 * buffer it (a 200 MB body used to take the web server to 1 GB RSS). A Content-Length over the
 * limit is refused without reading anything; a chunked body errors (and its source is
 * cancelled) as soon as the count passes the limit, so at most one chunk more than the limit
 * is ever read.
 */

/**
 * The same request with its body limited to `limit` bytes: reading past the limit rejects with
 * `tooLarge()`, whoever reads it (the tRPC adapter or our own upload route).
 */
export function withBodyLimit(req: Request, limit: number, tooLarge: () => Error): Request {
  if (!req.body) return req;
  const declared = Number(req.headers.get('content-length') ?? NaN);
  let body: ReadableStream<Uint8Array>;
  if (Number.isFinite(declared) && declared > limit) {
    req.body.cancel().catch(() => {});
    body = new ReadableStream({ start: (c) => c.error(tooLarge()) });
  } else {
    let total = 0;
    body = req.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          if (total > limit) controller.error(tooLarge());
          else controller.enqueue(chunk);
        },
      }),
    );
  }
  return new Request(req.url, { method: req.method, headers: req.headers, body, signal: req.signal, duplex: 'half' } as RequestInit);
}

/** "1 MiB", "64 MiB", "1500 bytes": limits as people set them. */
export function formatBytes(n: number): string {
  const mib = n / (1024 * 1024);
  if (Number.isInteger(mib)) return `${mib} MiB`;
  const kib = n / 1024;
  if (Number.isInteger(kib)) return `${kib} KiB`;
  return `${n} bytes`;
}
