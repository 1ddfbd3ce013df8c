/*
 * crucible microVM init: PID 1 of a `microvm` sandbox's guest (see microvm.ts), the only
 * program of its initramfs besides the supervisor, Debian's virtio modules and our
 * seccomp filter. It sets the guest up and then becomes the supervisor (supervisor.c),
 * which serves execs over a virtio-serial port exactly as it does in bwrap and gVisor.
 *
 * Steps: mount devtmpfs, proc and sysfs; load the virtio modules (virtio_mmio with the
 * `virtio_mmio.device=` entries of the kernel command line); find the two disks by serial
 * (`crucible-root`, the environment's ext4 image, attached read-only by the host;
 * `crucible-scratch`, the quota-sized scratch disk); mount the root read-only, the scratch
 * at /work and /tmp, a fresh proc (hidepid=invisible: the commands' uid sees only its own
 * processes, not the kernel's threads), a minimal /dev on a tmpfs owned by root; bring
 * up loopback (there is no other interface: the VM has no network device); put
 * itself in a cgroup with the quota's memory.max and pids.max (the guest's own limits,
 * inside a VM sized by the same quota); chroot into the root; apply the seccomp filter
 * with no_new_privs; and exec the supervisor (`--user UID:GID`) from an fd held across the
 * chroot, with the virtio-serial port as its stdin/stdout and the console as stderr.
 *
 * It reports on the console (the host keeps it as console.log): `crucible-init: booted`
 * first (the host's KVM probe waits for it; with `crucible.probe=1` it then stops the VM),
 * `crucible-init: root-ro=N` (the root disk's
 * read-only flag as the guest kernel sees it), and any failure, after which it exits
 * and the kernel panics (the VM stops: `panic=-1` with qemu's -no-reboot).
 *
 * Kernel command line: crucible.uid=UID:GID crucible.mem=BYTES crucible.pids=N.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static void say(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  (void)!write(2, buf, (size_t)n);
}

static void die(const char *what) {
  say("crucible-init: FAILED %s: %s", what, strerror(errno));
  _exit(1); /* PID 1 exiting panics the kernel; the VM stops (panic=-1, -no-reboot) */
}

static char cmdline[4096];

/* The value of `key=` on the kernel command line, copied into out; 0 when absent. */
static int param(const char *key, char *out, size_t n) {
  size_t kl = strlen(key);
  for (char *p = cmdline; p && *p;) {
    while (*p == ' ') p++;
    if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
      char *v = p + kl + 1;
      size_t l = strcspn(v, " \n");
      if (l >= n) l = n - 1;
      memcpy(out, v, l);
      out[l] = 0;
      return 1;
    }
    p = strchr(p, ' ');
  }
  return 0;
}

/* virtio_mmio's `device=` parameters (from `virtio_mmio.device=` on the command line) */
static void mmio_params(char *out, size_t n) {
  out[0] = 0;
  const char *key = "virtio_mmio.device=";
  for (char *p = strstr(cmdline, key); p; p = strstr(p + 1, key)) {
    size_t l = strcspn(p + 19, " \n"), used = strlen(out);
    if (used + l + 9 >= n) break;
    snprintf(out + used, n - used, "%sdevice=%.*s", used ? " " : "", (int)l, p + 19);
  }
}

/* Load /modules/<name>.ko in the order of /modules/order (one name a line). */
static void load_modules(void) {
  FILE *f = fopen("/modules/order", "re");
  if (!f) die("open /modules/order");
  char name[128], path[256], params[1024];
  while (fgets(name, sizeof name, f)) {
    name[strcspn(name, "\n")] = 0;
    if (!name[0]) continue;
    snprintf(path, sizeof path, "/modules/%s.ko", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die(path);
    params[0] = 0;
    if (strcmp(name, "virtio_mmio") == 0) mmio_params(params, sizeof params);
    if (syscall(SYS_finit_module, fd, params, 0) != 0 && errno != EEXIST) die(path);
    close(fd);
  }
  fclose(f);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* /dev/vdX whose virtio serial is `serial` (waits for the driver to probe it). */
static int find_disk(const char *serial, char *dev, size_t n) {
  for (int tries = 0; tries < 2000; tries++) {
    DIR *d = opendir("/sys/block");
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (strncmp(e->d_name, "vd", 2) != 0) continue;
      char p[256], s[64] = "";
      snprintf(p, sizeof p, "/sys/block/%.32s/serial", e->d_name);
      int fd = open(p, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t r = read(fd, s, sizeof s - 1);
      close(fd);
      s[r > 0 ? r : 0] = 0;
      s[strcspn(s, "\n")] = 0;
      if (strcmp(s, serial) == 0) {
        snprintf(dev, n, "/dev/%.32s", e->d_name);
        closedir(d);
        if (access(dev, F_OK) == 0) return 0;
        break;
      }
    }
    if (d) closedir(d);
    sleep_ms(5);
  }
  errno = ENODEV;
  return -1;
}

/* The virtio-serial port (vportNpM) the host talks on. */
static int find_port(char *dev, size_t n) {
  for (int tries = 0; tries < 2000; tries++) {
    DIR *d = opendir("/dev");
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (strncmp(e->d_name, "vport", 5) == 0) {
        snprintf(dev, n, "/dev/%.32s", e->d_name);
        closedir(d);
        return 0;
      }
    }
    if (d) closedir(d);
    sleep_ms(5);
  }
  errno = ENODEV;
  return -1;
}

static void write_file(const char *path, const char *value) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, value, strlen(value)) < 0) die(path);
  close(fd);
}

static void must_mount(const char *src, const char *dst, const char *type, unsigned long flags, const char *data) {
  if (mount(src, dst, type, flags, data) != 0) die(dst);
}

/* A minimal /dev on a root-owned tmpfs: nothing the commands' uid can add to or replace. */
static void make_dev(void) {
  must_mount("crucible-dev", "/newroot/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k");
  static const struct { const char *name; unsigned maj, min; } nodes[] = {
      {"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0}};
  char p[64];
  for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
    snprintf(p, sizeof p, "/newroot/dev/%s", nodes[i].name);
    if (mknod(p, S_IFCHR | 0666, makedev(nodes[i].maj, nodes[i].min)) != 0) die(p);
    chmod(p, 0666);
  }
  if (symlink("/proc/self/fd", "/newroot/dev/fd") || symlink("/proc/self/fd/0", "/newroot/dev/stdin") ||
      symlink("/proc/self/fd/1", "/newroot/dev/stdout") || symlink("/proc/self/fd/2", "/newroot/dev/stderr"))
    die("/dev symlinks");
  if (mkdir("/newroot/dev/shm", 01777) != 0) die("/dev/shm");
  must_mount("crucible-shm", "/newroot/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
}

/* The guest's own limits, inside a VM sized by the same quota: memory.max and pids.max. */
static void join_cgroup(void) {
  char mem[32], pids[32], v[64];
  if (!param("crucible.mem", mem, sizeof mem) || !param("crucible.pids", pids, sizeof pids)) {
    errno = EINVAL;
    die("crucible.mem / crucible.pids missing from the kernel command line");
  }
  if (mkdir("/cg", 0700) != 0 && errno != EEXIST) die("/cg");
  must_mount("cgroup2", "/cg", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, "");
  write_file("/cg/cgroup.subtree_control", "+memory +pids");
  if (mkdir("/cg/sandbox", 0755) != 0) die("/cg/sandbox");
  write_file("/cg/sandbox/memory.max", mem);
  write_file("/cg/sandbox/memory.swap.max", "0");
  snprintf(v, sizeof v, "%ld", atol(pids) + 1); /* + the supervisor */
  write_file("/cg/sandbox/pids.max", v);
  write_file("/cg/sandbox/cgroup.procs", "0");
}

/* Loopback up, as in the other runtimes' network namespaces; the VM has no other interface. */
static void loopback_up(void) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strcpy(ifr.ifr_name, "lo");
  if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0) die("lo flags");
  ifr.ifr_flags |= IFF_UP;
  if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) die("lo up");
  close(s);
}

/* Our seccomp filter (seccomp.ts, the same one bwrap applies), with no_new_privs. */
static void apply_seccomp(const char *bpf, size_t len) {
  struct sock_fprog prog = {(unsigned short)(len / sizeof(struct sock_filter)), (struct sock_filter *)(void *)bpf};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) die("seccomp");
}

int main(void) {
  /* the kernel gave PID 1 /dev/console as 0, 1 and 2 (the initramfs has it) */
  if (mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755") != 0 && errno != EBUSY) die("/dev");
  int con = open("/dev/console", O_WRONLY | O_CLOEXEC);
  if (con >= 0) dup2(con, 2);
  say("crucible-init: booted");
  must_mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "");
  must_mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "");
  int cf = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
  if (cf < 0) die("/proc/cmdline");
  ssize_t cl = read(cf, cmdline, sizeof cmdline - 1);
  cmdline[cl > 0 ? cl : 0] = 0;
  close(cf);
  if (strstr(cmdline, "crucible.probe=1")) _exit(0); /* the host's accelerator probe only needed the line above */
  char user[64];
  if (!param("crucible.uid", user, sizeof user)) {
    errno = EINVAL;
    die("crucible.uid missing from the kernel command line");
  }
  load_modules();

  char rootdev[64], scratchdev[64], port[64];
  if (find_disk("crucible-root", rootdev, sizeof rootdev) != 0) die("root disk (serial crucible-root)");
  if (find_disk("crucible-scratch", scratchdev, sizeof scratchdev) != 0) die("scratch disk (serial crucible-scratch)");
  int rfd = open(rootdev, O_RDONLY | O_CLOEXEC), ro = -1;
  if (rfd >= 0) {
    if (ioctl(rfd, BLKROGET, &ro) != 0) ro = -1;
    close(rfd);
  }
  say("crucible-init: root-ro=%d", ro);

  if (mkdir("/newroot", 0755) != 0 && errno != EEXIST) die("/newroot");
  must_mount(rootdev, "/newroot", "ext4", MS_RDONLY | MS_NODEV | MS_NOSUID, "noload");
  if (mkdir("/scratch", 0755) != 0 && errno != EEXIST) die("/scratch");
  must_mount(scratchdev, "/scratch", "ext4", MS_NODEV | MS_NOSUID, "");
  unsigned uid = 0, gid = 0;
  if (sscanf(user, "%u:%u", &uid, &gid) != 2) {
    errno = EINVAL;
    die("crucible.uid");
  }
  mkdir("/scratch/work", 0755);
  mkdir("/scratch/tmp", 01777);
  if (chown("/scratch/work", uid, gid) || chmod("/scratch/work", 0755) || chmod("/scratch/tmp", 01777)) die("scratch ownership");
  must_mount("/scratch/work", "/newroot/work", NULL, MS_BIND, NULL);
  must_mount("/scratch/tmp", "/newroot/tmp", NULL, MS_BIND, NULL);
  must_mount("proc", "/newroot/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible");
  make_dev();

  /* heuristic overcommit would refuse a large allocation up front; the cgroup's OOM decides, as on the host */
  write_file("/proc/sys/vm/overcommit_memory", "1");
  write_file("/proc/sys/kernel/dmesg_restrict", "1");
  write_file("/proc/sys/kernel/kptr_restrict", "2");
  loopback_up();
  join_cgroup();

  static char bpf[65536];
  int bf = open("/seccomp.bpf", O_RDONLY | O_CLOEXEC);
  ssize_t bl = bf >= 0 ? read(bf, bpf, sizeof bpf) : -1;
  if (bl <= 0 || bl % (ssize_t)sizeof(struct sock_filter)) die("/seccomp.bpf");
  close(bf);
  int sup = open("/crucible-supervisor", O_RDONLY | O_CLOEXEC);
  if (sup < 0) die("/crucible-supervisor");
  if (find_port(port, sizeof port) != 0) die("virtio-serial port");
  int pfd = open(port, O_RDWR);
  if (pfd < 0) die(port);
  if (dup2(pfd, 0) < 0 || dup2(pfd, 1) < 0) die("dup2");
  if (pfd > 2) close(pfd);

  if (chdir("/newroot") != 0 || chroot(".") != 0 || chdir("/") != 0) die("chroot");
  apply_seccomp(bpf, (size_t)bl);
  char *argv[] = {"crucible-supervisor", "--user", user, "--wipe-scratch", NULL};
  char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL};
  syscall(SYS_execveat, sup, "", argv, envp, AT_EMPTY_PATH);
  die("exec the supervisor");
  return 1;
}
