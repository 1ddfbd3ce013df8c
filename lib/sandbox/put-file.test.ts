import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxManager } from './pool/manager';
import { testManager } from './sandbox.testkit';
import { SandboxError } from './types';

/**
 * putFile/getFile run on the host as root; links planted by sandboxed code must never lead
 * them outside the sandbox's scratch (they used to `mkdir -p` through a planted link).
 */
describe('putFile and getFile do not follow links the sandbox planted', () => {
  let manager: SandboxManager;
  let cleanup: () => Promise<void>;
  let outside: string;
  const etcName = `crucible-planted-${process.pid}`;
  beforeAll(() => {
    ({ manager, cleanup } = testManager('putfile'));
    outside = mkdtempSync('/tmp/crucible-putfile-outside-');
  });
  afterAll(async () => {
    rmSync(`/etc/${etcName}`, { recursive: true, force: true }); // only there if the walk followed the link
    rmSync(outside, { recursive: true, force: true });
    await cleanup?.();
  });

  it('a planted directory link (to /etc or any host path) or file link is refused with a clear error; nothing is written outside', async () => {
    const sb = await manager.acquire({ runtime: 'bwrap', limits: { memoryMb: 64, diskMb: 16 } });
    try {
      // host paths: the host side is what would follow them
      const plant = await sb.exec([
        'sh',
        '-c',
        `ln -s /etc /work/etc && ln -s ${outside} /work/out && ln -s ${outside}/file /work/f && mkdir /work/real && ln -s ${outside} /work/real/deep && ln -s /etc /tmp/t && echo planted`,
      ]);
      expect(plant.stdout).toBe('planted\n');
      const attempts: [string, RegExp][] = [
        [`/work/etc/${etcName}/x`, /\/work\/etc is a symbolic link or not a directory/],
        ['/work/out/a/b/file', /\/work\/out is a symbolic link/],
        ['out/file', /\/work\/out is a symbolic link/],
        ['/work/f', /\/work\/f is a symbolic link/],
        ['/work/real/deep/file', /\/work\/real\/deep is a symbolic link/],
        [`/tmp/t/${etcName}`, /\/tmp\/t is a symbolic link/],
      ];
      const errors = attempts.map(([dest]) => {
        try {
          sb.putFile(dest, 'owned');
          return undefined;
        } catch (e) {
          return e;
        }
      });
      // first what matters: nothing was created or written outside the scratch
      expect(existsSync(`/etc/${etcName}`), `/etc/${etcName} created through the planted link`).toBe(false);
      expect(readdirSync(outside), 'written through a planted link').toEqual([]);
      attempts.forEach(([dest, message], i) => {
        expect(errors[i], dest).toBeInstanceOf(SandboxError);
        expect((errors[i] as Error).message, dest).toMatch(message);
      });
      expect(() => sb.getFile('/work/etc/hostname')).toThrow(/\/work\/etc is a symbolic link/);
      expect(() => sb.getFile('/tmp/t/hostname')).toThrow(/\/tmp\/t is a symbolic link/);

      // real directories still work, created as needed, and the sandbox sees the file
      sb.putFile('/work/real/new/dir/ok.txt', 'fine');
      expect(sb.getFile('real/new/dir/ok.txt').toString()).toBe('fine');
      const r = await sb.exec(['cat', '/work/real/new/dir/ok.txt']);
      expect(r.stdout).toBe('fine');
    } finally {
      await manager.release(sb);
    }
  });

  it('a FIFO planted at the destination fails at once instead of blocking the host', async () => {
    const sb = await manager.acquire({ runtime: 'bwrap', limits: { memoryMb: 64, diskMb: 16 } });
    try {
      await sb.exec(['python3', '-c', 'import os; os.mkfifo("/work/pipe")']);
      expect(() => sb.putFile('/work/pipe', 'x')).toThrow(SandboxError);
      expect(() => sb.getFile('/work/pipe')).toThrow(/not a regular file/);
    } finally {
      await manager.release(sb);
    }
  });
});

describe('putFile into a full scratch', () => {
  let manager: SandboxManager;
  let cleanup: () => Promise<void>;
  beforeAll(() => {
    ({ manager, cleanup } = testManager('putfile-full'));
  });
  afterAll(async () => {
    await cleanup?.();
  });

  it('a file larger than the scratch throws a clear error and leaves no truncated file behind', async () => {
    const sb = await manager.acquire({ runtime: 'bwrap', limits: { memoryMb: 64, diskMb: 1 } });
    try {
      const big = Buffer.alloc(3 * 1024 * 1024, 0x61); // 3 MiB into a 1 MiB tmpfs
      let err: unknown;
      try {
        sb.putFile('/work/big.bin', big);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SandboxError);
      expect((err as Error).message).toMatch(/^\/work\/big\.bin: the sandbox scratch is full \(ENOSPC\) after \d+ of 3145728 bytes; nothing was kept/);
      const ls = await sb.exec(['sh', '-c', 'ls -l /work/big.bin 2>&1; echo done']);
      expect(ls.stdout).toMatch(/No such file[\s\S]*done\n$/);
      // Smaller files still fit afterwards: the space of the failed one was given back.
      sb.putFile('/work/small.txt', 'x'.repeat(100 * 1024));
      expect(sb.getFile('/work/small.txt').length).toBe(100 * 1024);
    } finally {
      await manager.release(sb);
    }
  });
});
