import { rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressProxy, MAX_HEAD_BYTES } from './egress';
import { testDataDir, testManager } from '../sandbox.testkit';

/** A host TCP server that greets and counts connections. */
async function listener(greeting: string): Promise<{ port: number; count: () => number; close: () => void }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.end(greeting);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, count: () => n, close: () => server.close() };
}

const client = (port: number, allowedPort: number, deniedPort: number) => `
import os, socket
def via_proxy(port):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=3)
    s.sendall(f"CONNECT 127.0.0.1:{port} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n".encode())
    data = b""
    while True:
        d = s.recv(4096)
        if not d: break
        data += d
    return data.decode(errors="replace").replace("\\r\\n", "|")
print("proxy env", os.environ.get("HTTPS_PROXY"))
print("allowed:", via_proxy(${allowedPort}))
print("denied:", via_proxy(${deniedPort}))
try:
    socket.create_connection(("127.0.0.1", ${port}), timeout=1); print("DIRECT CONNECTED")
except OSError as e:
    print("direct refused", e.errno)
`;

describe('network allow-list through the logging egress proxy (bwrap)', () => {
  let t: ReturnType<typeof testManager>;
  beforeAll(() => {
    t = testManager('egress');
  });
  afterAll(async () => t?.cleanup());

  it('reaches allowed host:port only through the proxy; others are refused and logged; direct connections fail', async () => {
    const ok = await listener('HELLO-ALLOWED');
    const no = await listener('SHOULD-NOT-SEE');
    try {
      const r = await t.manager.exec({ limits: { memoryMb: 128, diskMb: 16, timeoutMs: 15_000 }, allow: [`127.0.0.1:${ok.port}`] }, [
        'python3',
        '-c',
        client(ok.port, ok.port, no.port),
      ]);
      expect(r.status, r.stderr).toBe('ok');
      expect(r.stdout).toContain('proxy env http://127.0.0.1:3128');
      expect(r.stdout).toMatch(/allowed: HTTP\/1\.1 200 Connection established\|\|HELLO-ALLOWED/);
      expect(r.stdout).toMatch(/denied: HTTP\/1\.1 403 Forbidden/);
      expect(r.stdout).toMatch(/direct refused/);
      expect(ok.count()).toBe(1);
      expect(no.count()).toBe(0);
      expect(r.egress).toHaveLength(2);
      expect(r.egress).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            host: '127.0.0.1',
            port: no.port,
            allowed: false,
            bytesOut: `CONNECT 127.0.0.1:${no.port} HTTP/1.1\r\nHost: x\r\n\r\n`.length,
          }),
          expect.objectContaining({
            host: '127.0.0.1',
            port: ok.port,
            allowed: true,
            bytesIn: 'HELLO-ALLOWED'.length,
            bytesOut: `CONNECT 127.0.0.1:${ok.port} HTTP/1.1\r\nHost: x\r\n\r\n`.length,
          }),
        ]),
      );
    } finally {
      ok.close();
      no.close();
    }
  });

  it('without an allow-list there is no proxy and no route', async () => {
    const r = await t.manager.exec({ limits: { memoryMb: 128, diskMb: 16 } }, [
      'python3',
      '-c',
      'import socket\ntry:\n  socket.create_connection(("127.0.0.1", 3128), timeout=1); print("CONNECTED")\nexcept OSError as e: print("refused")',
    ]);
    expect(r.stdout).toBe('refused\n');
    expect(r.egress).toBeUndefined();
  });
});

/** A destination that counts what it receives and answers `reply` once the data ends with `endMark`. */
async function destination(endMark: string, reply: Buffer) {
  let received = Buffer.alloc(0);
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    s.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      if (received.toString('latin1').endsWith(endMark)) s.end(reply);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, received: () => received.length, connections: () => connections, close: () => server.close() };
}

/** A sandbox-side client on the proxy's socket: writes `first` in one write, `afterConnect` once the tunnel is up, reads to EOF. */
function proxyClient(socketPath: string, first: Buffer, afterConnect?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(socketPath);
    let got = Buffer.alloc(0);
    let sent = false;
    s.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (afterConnect && !sent && got.includes('\r\n\r\n')) {
        sent = true;
        s.write(afterConnect);
      }
    });
    s.on('close', () => resolve(got.toString('latin1')));
    s.on('error', reject);
    s.write(first);
  });
}

describe('egress byte accounting (the proxy itself, on its unix socket)', () => {
  const dir = testDataDir('egress-bytes');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  async function withProxy<T>(allow: string[], f: (p: EgressProxy) => Promise<T>): Promise<T> {
    const p = new EgressProxy(path.join(dir, `e${n++}.sock`), allow);
    await p.listen();
    try {
      return await f(p);
    } finally {
      p.close();
    }
  }

  /** The log entry is written when the destination side closes, just after the client sees EOF. */
  async function entries(p: EgressProxy, count: number) {
    for (let i = 0; i < 200 && p.log.length < count; i++) await new Promise((r) => setTimeout(r, 10));
    return p.log;
  }

  it('CONNECT: the CONNECT head, the payload sent in the same write and everything after it count as sent', async () => {
    const payload = Buffer.alloc(50_000, 'p');
    const later = Buffer.from(`${'l'.repeat(997)}END`);
    const reply = Buffer.alloc(7000, 'r');
    const dest = await destination('END', reply);
    try {
      await withProxy([`127.0.0.1:${dest.port}`], async (p) => {
        const head = Buffer.from(`CONNECT 127.0.0.1:${dest.port} HTTP/1.1\r\nHost: 127.0.0.1:${dest.port}\r\n\r\n`);
        const got = await proxyClient(p.socketPath, Buffer.concat([head, payload]), later);
        expect(got).toBe(`HTTP/1.1 200 Connection established\r\n\r\n${reply.toString('latin1')}`);
        expect(dest.received()).toBe(payload.length + later.length); // the tunnel carried the payload, not the CONNECT head
        const [e] = await entries(p, 1);
        expect(e).toMatchObject({
          host: '127.0.0.1',
          port: dest.port,
          allowed: true,
          bytesOut: head.length + payload.length + later.length,
          bytesIn: reply.length,
        });
      });
    } finally {
      dest.close();
    }
  });

  it('plain HTTP: the whole request head (a big one) and the body count as sent', async () => {
    const body = Buffer.from(`${'b'.repeat(4997)}END`);
    const reply = Buffer.from('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n');
    const dest = await destination('END', reply);
    try {
      await withProxy([`127.0.0.1:${dest.port}`], async (p) => {
        const head =
          `POST http://127.0.0.1:${dest.port}/upload HTTP/1.1\r\nHost: 127.0.0.1:${dest.port}\r\nX-Pad: ${'h'.repeat(12_000)}\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`;
        const request = Buffer.concat([Buffer.from(head), body]);
        const got = await proxyClient(p.socketPath, request);
        expect(got).toBe(reply.toString('latin1'));
        expect(dest.received()).toBe(request.length);
        const [e] = await entries(p, 1);
        expect(e).toMatchObject({ allowed: true, bytesOut: request.length, bytesIn: reply.length });
      });
    } finally {
      dest.close();
    }
  });

  it('refused requests count their bytes too: a denied CONNECT with a payload, and a line that is not a proxy request', async () => {
    await withProxy(['127.0.0.1:1'], async (p) => {
      const denied = Buffer.concat([Buffer.from('CONNECT example.com:443 HTTP/1.1\r\n\r\n'), Buffer.alloc(3000, 'x')]);
      expect(await proxyClient(p.socketPath, denied)).toMatch(/^HTTP\/1\.1 403 Forbidden/);
      const bad = Buffer.from('GET /relative HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await proxyClient(p.socketPath, bad)).toMatch(/^HTTP\/1\.1 400 Bad Request/);
      const log = await entries(p, 2);
      expect(log).toEqual([
        expect.objectContaining({ host: 'example.com', port: 443, allowed: false, bytesOut: denied.length }),
        expect.objectContaining({ host: '', port: 0, allowed: false, bytesOut: bad.length }),
      ]);
    });
  });

  it(`a request head over ${MAX_HEAD_BYTES} bytes is refused even when it arrives whole in one write with a payload after it`, async () => {
    const dest = await destination('', Buffer.from('SHOULD-NOT-SEE'));
    try {
      await withProxy([`127.0.0.1:${dest.port}`], async (p) => {
        const head = Buffer.from(`CONNECT 127.0.0.1:${dest.port} HTTP/1.1\r\nX-Pad: ${'h'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`);
        const sent = Buffer.concat([head, Buffer.alloc(1000, 'p')]);
        expect(await proxyClient(p.socketPath, sent)).toMatch(/^HTTP\/1\.1 431 /);
        expect(dest.connections()).toBe(0);
        const [e] = await entries(p, 1);
        expect(e).toMatchObject({ allowed: false, error: expect.stringContaining(`over ${MAX_HEAD_BYTES} bytes`) });
        expect(e!.bytesOut).toBeGreaterThan(MAX_HEAD_BYTES);
        expect(e!.bytesOut).toBeLessThanOrEqual(sent.length); // what was read before refusing: all of it unless the kernel split the write
      });
    } finally {
      dest.close();
    }
  });

  it(`a head without its blank line is cut off once it passes ${MAX_HEAD_BYTES} bytes`, async () => {
    await withProxy(['127.0.0.1:1'], async (p) => {
      const s = net.connect(p.socketPath);
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString('latin1')));
      s.on('error', () => undefined);
      const closed = new Promise((r) => s.on('close', r));
      s.write('CONNECT 127.0.0.1:1 HTTP/1.1\r\n');
      for (let i = 0; i < 40 && !s.destroyed; i++) {
        s.write(`X-Pad: ${'h'.repeat(1000)}\r\n`);
        await new Promise((r) => setTimeout(r, 2));
      }
      await closed;
      expect(got).toMatch(/^HTTP\/1\.1 431 /);
      const [e] = await entries(p, 1);
      expect(e!.bytesOut).toBeGreaterThan(MAX_HEAD_BYTES);
    });
  });
});
