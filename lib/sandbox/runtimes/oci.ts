import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sandboxEnv } from './bwrap';
import { cgroupLayout } from '../limits/cgroup';
import { OCI_HOST_ID_BASE, OCI_SANDBOX_UID, ociConfig } from './oci-config';
import type { RuntimeOptions } from './options';
import { ownerAlive, parseOwnerTag } from '../pool/owner';
import { Sandbox, type LaunchContext, type Launched, type SandboxRuntime, type SandboxSpec } from './sandbox-runtime';
import { SandboxError, type Enforcement } from '../types';
import { namespacedEnforcement } from './enforcement';

const install: Record<string, string> = {
  crun: '`apt-get install crun` (or `bash scripts/system-deps.sh`)',
  runc: '`apt-get install runc` (or `bash scripts/system-deps.sh`)',
  'kata-runtime': 'Kata Containers: https://katacontainers.io/ (puts `kata-runtime` on PATH; needs KVM)',
};

/** crun 1.x refuses "hybrid" hosts: cgroup v1 plus a cgroup2 mount that has controllers. */
function hybridCgroupControllers(): string | undefined {
  const f = '/sys/fs/cgroup/unified/cgroup.controllers';
  if (!existsSync(f)) return undefined;
  const c = readFileSync(f, 'utf8').trim();
  return c || undefined;
}

/**
 * The command line for an OCI runtime. On a hybrid host, crun runs in a private mount
 * namespace where an empty tmpfs covers the cgroup2 mount, so it sees plain cgroup v1 and
 * uses the v1 hierarchies, which hold every controller we limit with (the cgroup2 one only
 * has what v1 lacks, e.g. hugetlb). Nothing changes for the host or the container.
 */
function ociCommand(binary: string, args: string[]): string[] {
  if (binary !== 'crun' || !hybridCgroupControllers() || cgroupLayout().mode !== 'v1') return [binary, ...args];
  return [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '/bin/sh',
    '-c',
    'mount -t tmpfs -o size=64k crucible-hide /sys/fs/cgroup/unified && exec "$@"',
    'crucible-crun',
    binary,
    ...args,
  ];
}

const RUNTIME_LOG = 'runtime.log';

function readRuntimeLog(bundle: string): string | undefined {
  try {
    return readFileSync(path.join(bundle, RUNTIME_LOG), 'utf8').trim().split('\n')[0] || undefined;
  } catch {
    return undefined;
  }
}

const CONTAINER_PREFIX = 'crucible-';

/**
 * Any OCI runtime but runsc (crun, runc, kata-runtime, youki; gVisor is gvisor.ts): a bundle with a generated
 * config.json per exec, run in the foreground with `BINARY run --bundle DIR ID`. The
 * runtime process is started inside the sandbox's cgroup and the config's relative
 * cgroupsPath nests the container under it, so our counters and kills cover it.
 */
export class OciRuntime implements SandboxRuntime {
  readonly name: string;
  constructor(
    readonly binary: string,
    readonly options: RuntimeOptions,
  ) {
    this.name = `oci:${binary}`;
  }

  check(): void {
    const r = spawnSync(this.binary, ['--version'], { encoding: 'utf8' });
    if (r.error || r.status !== 0) {
      throw new SandboxError(
        `the ${this.name} runtime needs \`${this.binary}\`, which is not installed or not runnable ` +
          `(${r.error?.message ?? r.stderr.trim()}). Install ${install[this.binary] ?? `\`${this.binary}\``}, or choose another --runtime (bwrap, oci:runc).`,
        'missing_runtime',
      );
    }
    if (process.getuid?.() !== 0)
      throw new SandboxError(`${this.name} sandboxes need root (rootless OCI is not supported yet); use --runtime bwrap`, 'missing_runtime');
    if (ociCommand(this.binary, [])[0] === 'unshare' && spawnSync('unshare', ['--version']).status !== 0) {
      throw new SandboxError(
        `crun refuses this host's hybrid cgroup layout (cgroup v1 plus /sys/fs/cgroup/unified with controllers: ${hybridCgroupControllers()}), ` +
          'and hiding it needs `unshare` from util-linux, which is missing. Install util-linux, or use --runtime oci:runc or bwrap.',
        'missing_runtime',
      );
    }
  }

  enforces(): Enforcement {
    return namespacedEnforcement({ disk: 'tmpfs-size', hostUid: OCI_HOST_ID_BASE + OCI_SANDBOX_UID });
  }

  create(spec: SandboxSpec): Sandbox {
    if (spec.allow?.length) {
      throw new SandboxError(
        `--allow (egress allow-list) is implemented for the bwrap runtime only; ${this.name} sandboxes have no network but loopback`,
        'config',
      );
    }
    return new OciSandbox(this, {
      ...spec,
      hostUid: spec.hostUid ?? OCI_HOST_ID_BASE + OCI_SANDBOX_UID,
      hostGid: spec.hostGid ?? OCI_HOST_ID_BASE + OCI_SANDBOX_UID,
    });
  }
}

export class OciSandbox extends Sandbox {
  /** the runtime's own error for the last exec (crun's --log), if it failed before the command ran */
  private runtimeError?: string;

  constructor(
    readonly runtime: OciRuntime,
    spec: SandboxSpec,
  ) {
    super(runtime.name, spec, runtime.options);
  }

  protected launch(ctx: LaunchContext): Launched {
    const containerId = `${CONTAINER_PREFIX}${path.basename(this.dir)}-${ctx.execId}`;
    const bundle = path.join(this.dir, `bundle-${ctx.execId}`);
    mkdirSync(bundle, { mode: 0o755 });
    const config = ociConfig({
      rootfs: this.scratch.view,
      work: this.scratch.work,
      tmp: this.scratch.tmp,
      cmd: ctx.cmd,
      env: sandboxEnv(ctx.opts.env),
      cwd: ctx.opts.cwd ?? '/work',
      limits: this.spec.limits,
      cgroupsPath: `c-${ctx.execId}`,
    });
    writeFileSync(path.join(bundle, 'config.json'), JSON.stringify(config, null, 2));
    const procs = this.cgroup.dirs.map((d) => path.join(d, 'cgroup.procs')).join(' ');
    // join our cgroup first, then become the runtime: nothing it starts is born outside
    this.runtimeError = undefined;
    // crun: its own errors to a log; and no cgroups of its own. It would create them at the
    // hierarchy roots (a relative cgroupsPath is not nested under its own cgroup there),
    // outside the sandbox's group; disabled, the container stays in the group the runtime
    // process joined below, whose limits and counters we own, as with bwrap.
    const crunOpts = this.runtime.binary === 'crun' ? [`--log=file:${path.join(bundle, RUNTIME_LOG)}`, '--cgroup-manager=disabled'] : [];
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        'for p in $CRUCIBLE_CGROUP_PROCS; do echo $$ > "$p" || exit 125; done; exec "$@"',
        'crucible-oci',
        ...ociCommand(this.runtime.binary, [...crunOpts, 'run', '--bundle', bundle, containerId]),
      ],
      {
        cwd: '/',
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', CRUCIBLE_CGROUP_PROCS: procs } as unknown as NodeJS.ProcessEnv,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    return {
      child,
      ready: Promise.resolve(),
      cleanup: () => {
        const [cmd, ...args] = ociCommand(this.runtime.binary, ['delete', '--force', containerId]);
        spawnSync(cmd!, args, { stdio: 'ignore' });
        this.runtimeError = readRuntimeLog(bundle);
        rmSync(bundle, { recursive: true, force: true });
      },
    };
  }

  protected setupFailure(code: number | null, stderr: string): string | undefined {
    if (code === 125) return 'could not join the sandbox cgroup';
    // crun logs its own failures (a missing executable, a cgroup it cannot create) to --log
    if (code !== 0 && this.runtimeError) return `${this.runtime.name} failed to start the container: ${this.runtimeError}`;
    const first = stderr.trim().split('\n')[0] ?? '';
    if (code !== 0 && /level=error|^crun:|^runc:|^runsc:|hybrid mode not supported|container_linux\.go/.test(first)) {
      return `${this.runtime.name} failed to start the container: ${first}`;
    }
    return undefined;
  }
}

/** Delete containers left by dead workers (their ids carry the owner tag). */
export function sweepDeadOciContainers(): string[] {
  const swept: string[] = [];
  for (const bin of ['runc', 'crun']) {
    const [listCmd, ...listArgs] = ociCommand(bin, ['list', '-q']);
    const r = spawnSync(listCmd!, listArgs, { encoding: 'utf8' });
    if (r.error || r.status !== 0) continue;
    for (const id of r.stdout.split('\n').filter((l) => l.startsWith(CONTAINER_PREFIX))) {
      const owner = parseOwnerTag(id.slice(CONTAINER_PREFIX.length));
      if (owner && !ownerAlive(owner)) {
        const [cmd, ...args] = ociCommand(bin, ['delete', '--force', id]);
        spawnSync(cmd!, args, { stdio: 'ignore' });
        swept.push(id);
      }
    }
  }
  return swept;
}
