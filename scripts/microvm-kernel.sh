#!/usr/bin/env bash
# The guest kernel of the `microvm` sandbox runtime: Debian's linux-image-cloud-amd64, fetched
# with `apt-get download` and unpacked with `dpkg-deb -x` into DEST (default
# <CRUCIBLE_DATA_DIR>/microvm/kernel), never installed as this host's kernel. Only the
# kernel image, its config and the five virtio modules the guest's init loads are kept.
# Usage: bash scripts/microvm-kernel.sh [DEST]
set -euo pipefail
dest="${1:-${CRUCIBLE_DATA_DIR:-.data}/microvm/kernel}"
if ls "$dest"/boot/vmlinuz-* >/dev/null 2>&1; then exit 0; fi
pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [ -z "$pkg" ]; then
  apt-get update -qq
  pkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chown _apt "$tmp" 2>/dev/null || true # apt-get download drops to _apt where it can
(cd "$tmp" && apt-get download -q "$pkg" >/dev/null)
dpkg-deb -x "$tmp"/"$pkg"_*.deb "$tmp/x"
ver=$(basename "$(ls -d "$tmp"/x/lib/modules/*)")
stage="$dest.$$.tmp"
rm -rf "$stage"
mkdir -p "$stage/boot" "$stage/modules"
cp "$tmp/x/boot/vmlinuz-$ver" "$tmp/x/boot/config-$ver" "$stage/boot/"
for m in virtio_ring virtio virtio_blk virtio_console virtio_mmio; do
  cp "$(find "$tmp/x/lib/modules/$ver" -name "$m.ko")" "$stage/modules/"
done
echo "$ver" >"$stage/version"
chmod -R a+rX "$stage"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest"
mv "$stage" "$dest"
echo "crucible: microvm guest kernel $ver in $dest" >&2
