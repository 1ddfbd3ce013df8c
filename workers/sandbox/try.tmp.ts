import { SandboxManager } from '@/workers/sandbox/manager';
const m = new SandboxManager({ dataDir: '/tmp/sbx-data', storeDir: '/tmp/sbx-store' });
console.log('sweep', m.sweep);
for (const rt of ['oci:runc', 'bwrap']) {
  for (const cmd of [['sh','-c','id; cat /proc/self/cgroup | head -3; echo hi > /work/x; ls -la /work; mount -t tmpfs x /mnt; echo $?'], ['python3','-c','x = bytearray(512*1024*1024)'], ['sleep','5']]) {
    const r = await m.exec({ runtime: rt, limits: { memoryMb: 128, timeoutMs: 2000, diskMb: 64 } }, cmd);
    console.log(rt, JSON.stringify(r));
  }
}
console.log(m.stats());
await m.close();
