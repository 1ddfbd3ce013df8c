#!/usr/bin/env bash
# Installs the Debian packages Crucible uses: bubblewrap/crun/runc/runsc for sandboxes and
# chromium for the browser tests. As root it installs what is missing; otherwise it
# prints the exact command to run.
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v crun >/dev/null 2>&1 || need+=(crun)
command -v runc >/dev/null 2>&1 || need+=(runc)
# gVisor's runsc serves the `gvisor` runtime (a user-space kernel between code and host)
command -v runsc >/dev/null 2>&1 || need+=(runsc)
# QEMU serves the `microvm` runtime (a microVM per sandbox; its guest kernel is fetched below)
command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
if [ "${CRUCIBLE_SKIP_BROWSER:-}" != "1" ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
  # test-only too: Ceph's radosgw with a monitor and an OSD, the real S3 server that the S3
  # artifact backend's tests and benchmark start (scripts/s3-test-server.sh)
  command -v radosgw >/dev/null 2>&1 || need+=(radosgw)
  command -v ceph-mon >/dev/null 2>&1 || need+=(ceph-mon)
  command -v ceph-osd >/dev/null 2>&1 || need+=(ceph-osd)
  # test-only: Debian's PyTorch, the independent reference the Hugging Face model tests
  # (lib/policy/hf) compare logits and greedy decoding with
  [ -e /usr/lib/python3/dist-packages/torch/__init__.py ] || need+=(python3-torch)
  # an optimised BLAS for it: with Debian's reference BLAS the training-parity references run
  # matmuls 8-15x slower (lib/policy/hf/train-parity.test.ts)
  dpkg -s libopenblas0-pthread >/dev/null 2>&1 || need+=(libopenblas0-pthread)
  # test-only: promtool, from Debian's prometheus package, checks and unit-tests the Prometheus
  # rules file (deploy/prometheus/prometheus-rules.test.ts); the server it also brings is kept off below
  command -v promtool >/dev/null 2>&1 || need+=(prometheus)
fi
command -v python3 >/dev/null 2>&1 || need+=(python3)
# Debian's pytest: the `repo` environment (repository tasks, lib/agent) copies it in
[ -e /usr/lib/python3/dist-packages/pytest/__init__.py ] || need+=(python3-pytest)
# git: the `repo` environment copies /usr/bin/git in (the agent's one-commit .git, lib/agent/episode/workspace-git.ts)
command -v git >/dev/null 2>&1 || need+=(git)
# gcc + libc headers build the sandbox's static PID-1 supervisor (warm bwrap sandboxes);
# without them sandboxes fall back to one bwrap per exec, which is slower.
command -v gcc >/dev/null 2>&1 || need+=(gcc)
[ -e /usr/include/stdio.h ] || need+=(libc6-dev)
# the microvm runtime's guest kernel: Debian's cloud kernel unpacked under the data dir, never
# installed as this host's kernel (scripts/microvm-kernel.sh); without it microvm is refused
microvm_kernel() {
  if [ "$(id -u)" = "0" ]; then
    bash "$(dirname "$0")/microvm-kernel.sh" || echo "crucible: could not fetch the microvm guest kernel; run bash scripts/microvm-kernel.sh" >&2
  fi
}
if [ ${#need[@]} -eq 0 ]; then
  microvm_kernel
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "crucible: missing system packages: ${need[*]}" >&2
  echo "crucible: install them with: sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "crucible: installing system packages: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# the prometheus package's postinst starts its server where services run (systemd, or sysvinit at
# a known runlevel; not in a container without either): only promtool is wanted, so stop it, keep it off
if [[ " ${need[*]} " == *" prometheus "* ]]; then
  if [ -d /run/systemd/system ]; then
    systemctl disable --now prometheus.service >/dev/null 2>&1 || true
  else
    invoke-rc.d prometheus stop >/dev/null 2>&1 || true
    update-rc.d prometheus disable >/dev/null 2>&1 || true
  fi
fi
microvm_kernel
