#!/usr/bin/env bash
# A throwaway single-node Ceph cluster serving S3 through radosgw, for the S3 artifact backend's
# tests and benchmark (lib/artifacts/s3-server.testkit.ts starts it). Ceph 16.2 (Debian 12) has
# no cluster-less rgw store (dbstore came in 17), so this runs one monitor, one OSD on memstore
# (objects in RAM) and radosgw's beast frontend, all on 127.0.0.1 with their state in one
# temporary directory.
#
# Usage: s3-test-server.sh MON_PORT S3_PORT ACCESS_KEY SECRET_KEY
# Prints `dir PATH`, then `ready` on stdout once S3 answers and the user exists, then holds the cluster until
# stdin closes (the parent stopped or died) or it gets SIGTERM/SIGINT/SIGHUP; on exit it kills
# the daemons and removes the directory, so nothing is left behind.
set -euo pipefail
mon_port=$1 s3_port=$2 access_key=$3 secret_key=$4
for bin in ceph-mon ceph-osd radosgw radosgw-admin monmaptool; do
  command -v "$bin" >/dev/null 2>&1 || {
    echo "s3-test-server: $bin is missing: apt-get install ceph-mon ceph-osd radosgw (or bash scripts/system-deps.sh)" >&2
    exit 3
  }
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/crucible-s3.XXXXXX")
echo "dir $dir" # for the parent, which removes it if it has to SIGKILL this script
pids=()
cleanup() {
  trap - EXIT INT TERM HUP
  # SIGKILL, not a clean shutdown: memstore would write every object to disk first, and the
  # whole cluster is thrown away anyway.
  [ ${#pids[@]} -gt 0 ] && kill -KILL "${pids[@]}" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' INT TERM HUP
fail() {
  echo "s3-test-server: $1" >&2
  for log in "$dir"/log/*.log; do [ -s "$log" ] && { echo "--- $log" >&2; tail -n 20 "$log" >&2; }; done
  exit 1
}

fsid=$(cat /proc/sys/kernel/random/uuid)
osd_uuid=$(cat /proc/sys/kernel/random/uuid)
mkdir -p "$dir/run" "$dir/log" "$dir/mon" "$dir/osd"
conf=$dir/ceph.conf
cat >"$conf" <<CONF
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$mon_port
public_addr = 127.0.0.1
ms_bind_ipv6 = false
# cephx adds nothing on a loopback-only throwaway cluster; S3 requests are still signed and checked by rgw
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
run_dir = $dir/run
admin_socket = $dir/run/\$name.asok
pid_file = $dir/run/\$name.pid
log_file = $dir/log/\$name.log
keyring = $dir/keyring
mon_data = $dir/mon
osd_data = $dir/osd
osd_objectstore = memstore
memstore_device_bytes = 4294967296
# one OSD: size-1 pools with few PGs, placed on that OSD
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
osd_crush_chooseleaf_type = 0
# rgw creates its pools one map change at a time: commit maps quickly (default 1 s each)
paxos_propose_interval = 0.05
paxos_min_wait = 0.01
# the disk under TMPDIR is not this cluster's concern (the monitor stops itself below 5 % free)
mon_data_avail_crit = 0
mon_data_avail_warn = 0
osd_op_num_shards = 2
osd_op_num_threads_per_shard = 1
[client.rgw]
rgw_frontends = beast endpoint=127.0.0.1:$s3_port
# rgw asks for a secure monitor session by default, which needs cephx
ms_mon_client_mode = crc
rgw_thread_pool_size = 32
rgw_enable_gc_threads = false
rgw_enable_lc_threads = false
rgw_enable_quota_threads = false
CONF

ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >"$dir/log/mkfs.log" 2>&1 || fail "ceph-mon --mkfs failed"
ceph-mon -c "$conf" -i a -f >>"$dir/log/daemons.log" 2>&1 &
pids+=($!)
id=$(timeout 30 ceph -c "$conf" osd new "$osd_uuid" 2>>"$dir/log/mkfs.log") || fail "the monitor did not take the OSD (port $mon_port busy?)"
ceph-osd -c "$conf" -i "$id" --mkfs --osd-uuid "$osd_uuid" >>"$dir/log/mkfs.log" 2>&1 || fail "ceph-osd --mkfs failed"
ceph-osd -c "$conf" -i "$id" -f >>"$dir/log/daemons.log" 2>&1 &
pids+=($!)
radosgw -c "$conf" -n client.rgw -f >>"$dir/log/daemons.log" 2>&1 &
pids+=($!)

# rgw listens only after it has created its pools, which needs the OSD up
deadline=$((SECONDS + 60))
until (exec 3<>"/dev/tcp/127.0.0.1/$s3_port") 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "radosgw did not listen on 127.0.0.1:$s3_port within 60 s"
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a Ceph daemon exited during startup"; done
  sleep 0.1
done
radosgw-admin -c "$conf" user create --uid crucible-test --display-name 'crucible test' \
  --access-key "$access_key" --secret-key "$secret_key" >"$dir/log/user.log" 2>&1 || fail "radosgw-admin user create failed"

echo ready
# hold until the parent closes our stdin (also when it dies) or signals us
read -r _ || true
