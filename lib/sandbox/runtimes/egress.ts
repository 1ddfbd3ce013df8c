import { chmodSync, rmSync } from 'node:fs';
import net from 'node:net';

/**
 * The egress proxy of a sandbox with an allow-list. It listens on a unix socket in the
 * sandbox's state directory; a forwarder inside the sandbox's network namespace (see
 * FORWARDER) exposes it as an HTTP proxy on the sandbox's own 127.0.0.1:3128. It speaks
 * CONNECT (any TCP, e.g. TLS) and absolute-URI HTTP, forwards only to allowed
 * `host:port` pairs, and logs every attempt. Nothing else leaves the sandbox: it has
 * no route but loopback.
 */
export const PROXY_PORT = 3128;

/** Largest request head (request line and headers, through the blank line) the proxy reads. */
export const MAX_HEAD_BYTES = 16 * 1024;

/**
 * One connection through the proxy. bytesOut is every byte the sandbox sent on it (the
 * request head, CONNECT line included, anything sent with it, and all that followed);
 * bytesIn every byte the destination sent back. The proxy's own replies (200, 403…) are
 * not counted. A connection refused before its destination is known has host "" and port 0.
 */
export type EgressLogEntry = { at: string; host: string; port: number; allowed: boolean; bytesOut: number; bytesIn: number; error?: string };

export class EgressProxy {
  readonly log: EgressLogEntry[] = [];
  private readonly server: net.Server;
  private readonly allow: Set<string>;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    readonly socketPath: string,
    allow: string[],
    private readonly onLog?: (e: EgressLogEntry) => void,
  ) {
    this.allow = new Set(allow.map((a) => a.toLowerCase()));
    this.server = net.createServer((c) => this.handle(c));
  }

  listen(): Promise<void> {
    rmSync(this.socketPath, { force: true });
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.socketPath, () => {
        chmodSync(this.socketPath, 0o666); // the forwarder runs as the sandbox's host uid
        resolve();
      });
    });
  }

  private record(e: EgressLogEntry): void {
    if (this.log.length < 10_000) this.log.push(e);
    this.onLog?.(e);
  }

  private handle(client: net.Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const refuse = (status: string, error: string) => {
      client.off('data', onData);
      client.pause();
      this.record({ at: new Date().toISOString(), host: '', port: 0, allowed: false, bytesOut: head.length, bytesIn: 0, error });
      client.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\n\r\n`);
    };
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      // the cap is on the head itself, however it arrives: in pieces or in one write with a payload after it
      if ((end < 0 ? head.length : end + 4) > MAX_HEAD_BYTES) return refuse('431 Request Header Fields Too Large', `request head over ${MAX_HEAD_BYTES} bytes`);
      if (end < 0) return;
      client.off('data', onData);
      client.pause();
      if (!this.route(client, head, end)) refuse('400 Bad Request', 'not a CONNECT or absolute-URI HTTP request');
    };
    client.on('data', onData);
  }

  /**
   * Forward (or refuse) a connection whose head is complete. `head` is everything read so
   * far, head and any payload sent with it, all of which counts as sent. False when the
   * request line is neither CONNECT nor absolute-URI HTTP.
   */
  private route(client: net.Socket, head: Buffer, end: number): boolean {
    const line = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
    const connect = /^CONNECT ([^\s:]+):(\d+) HTTP\/1\.[01]$/i.exec(line);
    const plain = /^[A-Z]+ http:\/\/([^\s/:]+)(?::(\d+))?[^\s]* HTTP\/1\.[01]$/i.exec(line);
    const m = connect ?? plain;
    if (!m) return false;
    const host = m[1]!.toLowerCase();
    const port = Number(m[2] ?? 80);
    const entry: EgressLogEntry = {
      at: new Date().toISOString(),
      host,
      port,
      allowed: this.allow.has(`${host}:${port}`),
      bytesOut: head.length,
      bytesIn: 0,
    };
    if (!entry.allowed) {
      this.record(entry);
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nX-Crucible-Egress: not in the allow-list\r\n\r\n');
      return true;
    }
    const upstream = net.connect({ host, port });
    this.sockets.add(upstream);
    upstream.on('close', () => {
      this.sockets.delete(upstream);
      this.record(entry);
    });
    upstream.on('error', (e) => {
      entry.error = e.message;
      if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    });
    upstream.once('connect', () => {
      if (connect) {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        const rest = head.subarray(end + 4);
        if (rest.length) upstream.write(rest);
      } else upstream.write(head);
      client.on('data', (d: Buffer) => (entry.bytesOut += d.length));
      upstream.on('data', (d: Buffer) => (entry.bytesIn += d.length));
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    return true;
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.server.close();
    rmSync(this.socketPath, { force: true });
  }
}

/** Runs in the sandbox's network namespace: 127.0.0.1:PORT → the host proxy's unix socket. */
export const FORWARDER = `
import asyncio, sys
path, port = sys.argv[1], int(sys.argv[2])
async def pipe(r, w):
    try:
        while True:
            d = await r.read(65536)
            if not d:
                break
            w.write(d)
            await w.drain()
    except Exception:
        pass
    finally:
        try:
            w.close()
        except Exception:
            pass
async def handle(r, w):
    try:
        ur, uw = await asyncio.open_unix_connection(path)
    except Exception:
        w.close()
        return
    await asyncio.gather(pipe(r, uw), pipe(ur, w))
async def main():
    for _ in range(200):
        try:
            srv = await asyncio.start_server(handle, '127.0.0.1', port)
            break
        except OSError:
            await asyncio.sleep(0.005)
    else:
        sys.exit(3)
    print('ready', flush=True)
    async with srv:
        await srv.serve_forever()
asyncio.run(main())
`;
