import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { childEnv } from '@/core/settings';

/**
 * A real S3-compatible server for the S3 artifact backend's tests and the artifacts benchmark:
 * Ceph's radosgw on a throwaway single-node cluster (scripts/s3-test-server.sh), its own
 * process group, stopped by `stop()` and also when this process dies (the script exits when
 * its stdin closes). Needs Debian's ceph-mon, ceph-osd and radosgw (scripts/system-deps.sh).
 */
export type S3TestServer = {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** e.g. "radosgw 16.2.15 (pacific)" */
  server: string;
  /** seconds from spawn until S3 answered and the bucket existed */
  startSeconds: number;
  stop(): Promise<void>;
};

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/s3-test-server.sh');
const REQUIRED = ['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin'];

/** Why the server cannot start here (a missing binary, with the install command), or undefined when it can. */
export function s3TestServerMissing(): string | undefined {
  const missing = REQUIRED.filter((bin) => {
    try {
      execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} not installed: apt-get install ceph-mon ceph-osd radosgw (or bash scripts/system-deps.sh)`;
}

/** The installed radosgw's version, e.g. "radosgw 16.2.15 (pacific)". */
export function radosgwVersion(): string {
  const out = execFileSync('radosgw', ['--version'], { encoding: 'utf8' });
  const m = /ceph version (\S+) \([0-9a-f]+\) (\w+)/.exec(out);
  return m ? `radosgw ${m[1]} (${m[2]})` : `radosgw (${out.trim()})`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Start radosgw on 127.0.0.1 with a fresh user and `bucket` created; throws with the daemons' logs when it cannot. */
export async function startS3TestServer(opts: { bucket?: string; timeoutMs?: number } = {}): Promise<S3TestServer> {
  const missing = s3TestServerMissing();
  if (missing) throw new Error(`the S3 test server (Ceph radosgw) cannot start: ${missing}`);
  const bucket = opts.bucket ?? 'crucible-test';
  const accessKeyId = `CRUCIBLE${randomBytes(6).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(24).toString('base64url');
  const started = performance.now();
  let launched: Launched;
  try {
    launched = await launch(accessKeyId, secretAccessKey, opts.timeoutMs ?? 90_000);
  } catch (e) {
    // the free ports this process picked can be taken before the daemons bind them: once more with new ones
    if (!(e instanceof ExitedDuringStartup)) throw e;
    launched = await launch(accessKeyId, secretAccessKey, opts.timeoutMs ?? 90_000);
  }
  const { endpoint, stop } = launched;
  try {
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    } finally {
      client.destroy();
    }
  } catch (e) {
    await stop();
    throw e;
  }
  const startSeconds = (performance.now() - started) / 1000;
  return { endpoint, bucket, region: 'us-east-1', accessKeyId, secretAccessKey, server: radosgwVersion(), startSeconds, stop };
}

class ExitedDuringStartup extends Error {}
type Launched = { endpoint: string; stop: () => Promise<void> };

/** Run scripts/s3-test-server.sh until it prints `ready`. */
async function launch(accessKeyId: string, secretAccessKey: string, timeoutMs: number): Promise<Launched> {
  const monPort = await freePort();
  let s3Port = await freePort();
  while (s3Port === monPort) s3Port = await freePort();
  // detached: its own process group, so a last-resort SIGKILL reaches the script and the daemons together
  const child = spawn('bash', [SCRIPT, String(monPort), String(s3Port), accessKeyId, secretAccessKey], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: childEnv(),
  });
  child.stdin.on('error', () => {}); // EPIPE once the script is gone
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
  let out = '';
  const lines = () => out.split('\n');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    // Closing stdin (or SIGTERM, while it is still starting) makes the script kill the daemons
    // and remove its directory; SIGKILL is the last resort, and then the directory is removed here.
    child.stdin.end();
    if (child.exitCode === null) child.kill('SIGTERM');
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 15_000);
    await exited;
    clearTimeout(timer);
    const dir = lines()
      .find((l) => l.startsWith('dir '))
      ?.slice(4);
    if (killed && dir) await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the S3 test server did not start within ${timeoutMs / 1000} s\n${stderr}`)), timeoutMs);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (lines().includes('ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new ExitedDuringStartup(`the S3 test server exited during startup (status ${code})\n${stderr}`));
      });
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { endpoint: `http://127.0.0.1:${s3Port}`, stop };
}
