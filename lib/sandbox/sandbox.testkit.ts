import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureDefaultEnvironment } from './env/env-builtin';
import { SandboxManager, type ManagerOptions } from './pool/manager';
import { runtimeByName } from './runtimes/runtime-by-name';
import { settings } from '@/core/settings';
import { runtimeOptions } from '@/lib/sandbox/runtimes/options';

/**
 * Shared by the sandbox test files: the default environment lives in one store reused
 * across files (content-addressed, so concurrent builds converge), while each file gets
 * its own data directory for sandboxes.
 */
export const TEST_STORE = '/tmp/crucible-sandbox-test-store';

export function testDataDir(tag: string): string {
  const dir = mkdtempSync(path.join('/tmp', `crucible-sbx-${tag}-`));
  chmodSync(dir, 0o755); // sandboxes run as nobody and must traverse it
  return dir;
}

/** The shared default environment, built once for all sandbox test files. */
export function ensureTestEnvironment(): void {
  mkdirSync(TEST_STORE, { recursive: true, mode: 0o755 });
  ensureDefaultEnvironment(TEST_STORE);
}

export function testManager(tag: string, extra: Partial<ManagerOptions> = {}): { manager: SandboxManager; dataDir: string; cleanup: () => Promise<void> } {
  ensureTestEnvironment();
  const dataDir = testDataDir(tag);
  const manager = new SandboxManager({ dataDir, storeDir: TEST_STORE, runtime: runtimeOptions(settings()), ...extra });
  return {
    manager,
    dataDir,
    cleanup: async () => {
      await manager.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runtimes installed on this host; others are reported as skipped with the reason. */
export function installedRuntimes(names: string[]): { name: string; available: boolean; reason?: string }[] {
  return names.map((name) => {
    try {
      runtimeByName(name, runtimeOptions(settings())).check();
      return { name, available: true };
    } catch (e) {
      return { name, available: false, reason: (e as Error).message };
    }
  });
}
