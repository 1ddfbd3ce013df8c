import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testManager } from './test-support';

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
      const r = await t.manager.exec(
        { limits: { memoryMb: 128, diskMb: 16, timeoutMs: 15_000 }, allow: [`127.0.0.1:${ok.port}`] },
        ['python3', '-c', client(ok.port, ok.port, no.port)],
      );
      expect(r.status, r.stderr).toBe('ok');
      expect(r.stdout).toContain('proxy env http://127.0.0.1:3128');
      expect(r.stdout).toMatch(/allowed: HTTP\/1\.1 200 Connection established\|\|HELLO-ALLOWED/);
      expect(r.stdout).toMatch(/denied: HTTP\/1\.1 403 Forbidden/);
      expect(r.stdout).toMatch(/direct refused/);
      expect(ok.count()).toBe(1);
      expect(no.count()).toBe(0);
      expect(r.egress).toHaveLength(2);
      expect(r.egress).toEqual(expect.arrayContaining([
        expect.objectContaining({ host: '127.0.0.1', port: no.port, allowed: false }),
        expect.objectContaining({ host: '127.0.0.1', port: ok.port, allowed: true, bytesIn: 'HELLO-ALLOWED'.length }),
      ]));
    } finally {
      ok.close();
      no.close();
    }
  });

  it('without an allow-list there is no proxy and no route', async () => {
    const r = await t.manager.exec({ limits: { memoryMb: 128, diskMb: 16 } }, ['python3', '-c', 'import socket\ntry:\n  socket.create_connection(("127.0.0.1", 3128), timeout=1); print("CONNECTED")\nexcept OSError as e: print("refused")']);
    expect(r.stdout).toBe('refused\n');
    expect(r.egress).toBeUndefined();
  });
});
