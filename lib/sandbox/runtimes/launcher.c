/*
 * crucible sandbox launcher: one small host-side helper per worker process (see launcher.ts).
 *
 * Why it exists: from Node, every spawn forks a process of 100+ MB (page tables copied), the
 * scratch tmpfs costs one more spawn of mount(8), and the environment's fast check (an lstat
 * of every entry) competes with both for the CPU. From this process a fork, a mount(2) and
 * that lstat loop each cost well under a millisecond, which is what a cold sandbox start
 * needs. It does nothing the host side did not do before; it only does it cheaper.
 *
 * Lifetime: it dies with its parent (PR_SET_PDEATHSIG) or when its stdin closes, and the
 * bwraps it started die with it (they run with --die-with-parent), so a killed worker
 * leaves no sandbox running, as before.
 *
 * Protocol (little-endian). Host -> launcher, on fd 0: u32 length, then a payload of
 * u8 op, u32 id, then NUL-terminated strings:
 *   'B' baseline: key, then (path, signature) pairs; replaces the key's baseline. No reply.
 *   'V' verify: key. Reply "ok watched" (no change reported since the last comparison), "ok
 *       compared" (every signature compared and equal), "diff" (one differs) or "need" (no
 *       baseline for key).
 *       Runs on its own thread, so a check never delays a spawn; see the check's section.
 *   'M' mount scratch: root, size MB, uid, gid[, rootfs]. A size-capped tmpfs on root holding
 *       work/ (0755) and tmp/ (01777), both owned by uid:gid. With rootfs, also root/: the
 *       rootfs seen through a read-only overlay (see mount_root_view). Reply "" (no rootfs),
 *       "root DEV INO" (the rootfs directory the view shows) or the error.
 *   'S' spawn bwrap: control socket path, stderr file, seccomp file (fd 3), executable (fd 6),
 *       uid, gid, the number of cgroup directories, those directories, then argv. fd 0 and 1
 *       are a connection to the host's control socket (which first receives the id, so the
 *       host can match it), fd 2 the stderr file, fd 4 bwrap's --info-fd and fd 5 its
 *       --block-fd, both kept here. bwrap and its child are moved into the cgroups; reply
 *       "PID CHILDPID" once both are there, or "error ..."; a 'D' frame follows when bwrap
 *       exits.
 *   'G' go: release the --block-fd of spawn id (the sandbox's PID 1 starts). No reply.
 *   'K' kill: SIGKILL the bwrap of spawn id if it has not exited. No reply.
 * Launcher -> host, on fd 1: frames of u8 op, u32 id, u32 length, payload: the replies above
 * under their request's op and id, and 'D' "CODE SIGNAL" (CODE -1 when killed by SIGNAL).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdio.h"

#define MAX_REQUEST (64u * 1024 * 1024)
#define MAX_SPAWNS 4096
#define MAX_ARGS 512

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* replies come from the main loop and from check and migration threads */
static void reply(char op, uint32_t id, const char *s) {
  uint32_t n = (uint32_t)strlen(s);
  char h[9];
  h[0] = op;
  memcpy(h + 1, &id, 4);
  memcpy(h + 5, &n, 4);
  pthread_mutex_lock(&out_lock);
  write_full(1, h, 9);
  if (n) write_full(1, s, n);
  pthread_mutex_unlock(&out_lock);
}

static void detach(void *(*fn)(void *), void *arg) {
  pthread_t t;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&a, 256 * 1024);
  if (pthread_create(&t, &a, fn, arg) != 0) fn(arg); /* no thread: run it here */
  pthread_attr_destroy(&a);
}

/* ---- the fast environment check ----------------------------------------------------- */

/*
 * The check compares an lstat signature of every entry with the baseline (as env-store.ts
 * does). Most starts skip that loop: once a comparison passed, inotify watches on every
 * entry (files and directories, by inode, so hard links and bind mounts are covered) report
 * any write, truncate, chmod/chown/utimes, create, delete or rename, and the mount table is
 * watched for mounts over or under the rootfs. A check with no event since the last passing
 * comparison needs one lstat (the rootfs itself: an ancestor renamed or replaced). Writes
 * through a shared mmap raise no inotify event, so a full comparison still runs at least
 * once a second (RECHECK_NS); any doubt (an event, a queue overflow, a watch that cannot be
 * added) falls back to the full comparison.
 */
#define RECHECK_NS 1000000000LL
#define WATCH_MASK                                                                                                            \
  (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_MOVED_FROM | IN_MOVED_TO | \
   IN_DONT_FOLLOW)

typedef struct {
  char *key;
  char *buf; /* the request the strings point into */
  char **paths, **sigs;
  size_t n;
  pthread_mutex_t lock; /* one check at a time per baseline */
  int ifd;              /* inotify fd; -1 not armed yet, -2 watches unavailable */
  int clean;            /* nothing changed since the last passing comparison */
  long long last_full;  /* when that comparison ran */
  char *mounts;         /* mounts over, under or above the rootfs at that time */
} Baseline;

/*
 * Replaced baselines are never freed: a check thread may still be reading one, and a
 * replacement only happens after a full re-hash found identical content (rare).
 */
static Baseline **baselines;
static size_t nbaselines;
static pthread_mutex_t base_lock = PTHREAD_MUTEX_INITIALIZER;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static Baseline *find_baseline(const char *key) {
  Baseline *found = NULL;
  pthread_mutex_lock(&base_lock);
  for (size_t i = 0; i < nbaselines && !found; i++)
    if (!strcmp(baselines[i]->key, key)) found = baselines[i];
  pthread_mutex_unlock(&base_lock);
  return found;
}

/* strings[0] is the key, then path/sig pairs; takes ownership of buf */
static void set_baseline(char *buf, char **strings, size_t n) {
  if (n < 1) {
    free(buf);
    return;
  }
  size_t pairs = (n - 1) / 2;
  Baseline *b = calloc(1, sizeof *b);
  if (!b) _exit(70);
  b->key = strings[0];
  b->buf = buf;
  b->n = pairs;
  b->ifd = -1;
  pthread_mutex_init(&b->lock, NULL);
  b->paths = malloc((pairs + 1) * sizeof(char *));
  b->sigs = malloc((pairs + 1) * sizeof(char *));
  if (!b->paths || !b->sigs) _exit(70);
  for (size_t i = 0; i < pairs; i++) {
    b->paths[i] = strings[1 + 2 * i];
    b->sigs[i] = strings[2 + 2 * i];
  }
  Baseline *old = NULL;
  pthread_mutex_lock(&base_lock);
  size_t i = 0;
  while (i < nbaselines && strcmp(baselines[i]->key, b->key)) i++;
  if (i == nbaselines) {
    baselines = realloc(baselines, (nbaselines + 1) * sizeof *baselines);
    if (!baselines) _exit(70);
    nbaselines++;
  } else old = baselines[i];
  baselines[i] = b;
  pthread_mutex_unlock(&base_lock);
  if (old) {
    pthread_mutex_lock(&old->lock);
    if (old->ifd >= 0) close(old->ifd);
    old->ifd = -2;
    old->clean = 0;
    pthread_mutex_unlock(&old->lock);
  }
}

static int sig_matches(const struct stat *st, const char *want) {
  char sig[128];
  snprintf(sig, sizeof sig, "%llu:%u:%lld:%lld:%lld", (unsigned long long)st->st_ino, (unsigned)st->st_mode, (long long)st->st_size,
           (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec);
  return !strcmp(sig, want);
}

/*
 * The same signature as env-store.ts sigOf (ino:mode:size:mtimeNs:ctimeNs of an lstat) for
 * every entry. Entries under the rootfs (paths[0]) are stat'ed relative to it, which saves
 * resolving the store's prefix for every one of them.
 */
static int compare_all(const Baseline *b) {
  if (b->n == 0) return 1;
  int rootfd = open(b->paths[0], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  size_t rootlen = strlen(b->paths[0]);
  int ok = 1;
  for (size_t i = 0; i < b->n && ok; i++) {
    struct stat st;
    const char *p = b->paths[i], *rel = p + rootlen;
    int under = rootfd >= 0 && i > 0 && !strncmp(p, b->paths[0], rootlen) && *rel == '/';
    while (under && *rel == '/') rel++; /* relative, or fstatat would ignore rootfd */
    int r = under && *rel ? fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) : lstat(p, &st);
    ok = r == 0 && sig_matches(&st, b->sigs[i]);
  }
  if (rootfd >= 0) close(rootfd);
  return ok;
}

/* mountinfo escapes these in mount points */
static void escape_path(const char *in, char *out, size_t outlen) {
  size_t o = 0;
  for (; *in && o + 5 < outlen; in++) {
    if (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\\') o += (size_t)snprintf(out + o, outlen - o, "\\%03o", (unsigned char)*in);
    else out[o++] = *in;
  }
  out[o] = 0;
}

/* "id mountpoint;" for every mount at, above or below `root` (malloc'd; NULL on error) */
static char *relevant_mounts(const char *root) {
  char want[4200];
  escape_path(root, want, sizeof want);
  size_t wl = strlen(want);
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (!f) return NULL;
  size_t cap = 256, len = 0;
  char *out = malloc(cap), *line = NULL;
  size_t lcap = 0;
  if (!out) _exit(70);
  out[0] = 0;
  while (getline(&line, &lcap, f) > 0) {
    char mp[4200];
    unsigned id;
    if (sscanf(line, "%u %*u %*s %*s %4199s", &id, mp) != 2) continue;
    size_t ml = strlen(mp);
    int above = !strcmp(mp, "/") || (ml <= wl && !strncmp(want, mp, ml) && (want[ml] == '/' || want[ml] == 0));
    int below = ml > wl && !strncmp(mp, want, wl) && mp[wl] == '/';
    if (!above && !below) continue;
    while (len + ml + 16 > cap) {
      cap *= 2;
      if (!(out = realloc(out, cap))) _exit(70);
    }
    len += (size_t)snprintf(out + len, cap - len, "%u %s;", id, mp);
  }
  free(line);
  fclose(f);
  return out;
}

static void arm_watches(Baseline *b) {
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  for (size_t i = 0; fd >= 0 && i < b->n; i++) {
    if (inotify_add_watch(fd, b->paths[i], WATCH_MASK) < 0) {
      close(fd);
      fd = -1;
    }
  }
  b->ifd = fd >= 0 ? fd : -2; /* -2: no watches (limits, or an entry already missing) */
}

/* Was anything reported since the last call? Reads every queued event (overflow included). */
static int drain_events(Baseline *b) {
  int any = 0;
  char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    ssize_t r = read(b->ifd, buf, sizeof buf);
    if (r > 0) any = 1;
    else if (r < 0 && errno == EINTR) continue;
    else break;
  }
  return any;
}

static const char *verify(Baseline *b) {
  pthread_mutex_lock(&b->lock);
  if (b->ifd == -1 && b->n > 0) arm_watches(b); /* before comparing: nothing slips between */
  int watched = b->ifd >= 0;
  if (watched && drain_events(b)) b->clean = 0;
  char *mounts = b->n ? relevant_mounts(b->paths[0]) : NULL;
  if (!mounts || !b->mounts || strcmp(mounts, b->mounts)) b->clean = 0;
  struct stat st;
  if (b->n && (lstat(b->paths[0], &st) != 0 || !sig_matches(&st, b->sigs[0]))) b->clean = 0;
  long long t = now_ns();
  if (!watched || t - b->last_full >= RECHECK_NS) b->clean = 0;
  int ok = b->clean, compared = !ok;
  if (!ok) {
    ok = compare_all(b);
    b->clean = ok && watched;
    b->last_full = t;
    free(b->mounts);
    b->mounts = mounts;
    mounts = NULL;
  }
  free(mounts);
  pthread_mutex_unlock(&b->lock);
  return !ok ? "diff" : compared ? "ok compared" : "ok watched";
}

typedef struct {
  uint32_t id;
  Baseline *b;
} CheckJob;

static void *check_main(void *arg) {
  CheckJob *j = arg;
  reply('V', j->id, verify(j->b));
  free(j);
  return NULL;
}

static void start_check(uint32_t id, const char *key) {
  Baseline *b = find_baseline(key);
  CheckJob *j = b ? malloc(sizeof *j) : NULL;
  if (!j) return reply('V', id, "need");
  *j = (CheckJob){.id = id, .b = b};
  detach(check_main, j);
}

/* ---- scratch ----------------------------------------------------------------------- */

/*
 * The environment's rootfs as the sandbox's / without revealing where it lives on the host.
 * A bind mount's root in /proc/self/mountinfo is its path inside the source filesystem
 * (e.g. /srv/crucible/.data/envs/<hash>/rootfs); an overlay is a filesystem of its own, so
 * its root shows as "/", and its lower layers are given as /proc/self/fd/N of this process,
 * which is all mountinfo repeats. An overlay without an upper layer needs two lower ones:
 * the second is an empty directory. If overlayfs is unavailable, a plain bind keeps the
 * sandbox working (the path is then visible, as before). The reply names the rootfs
 * directory the view pins, so the host can tell when the store later replaces it.
 */
static void mount_root_view(uint32_t id, const char *scratch, const char *rootfs) {
  char msg[4608], view[4096], empty[4096], opts[128];
  snprintf(view, sizeof view, "%s/root", scratch);
  snprintf(empty, sizeof empty, "%s/.empty", scratch);
  if (mkdir(view, 0755) != 0 || mkdir(empty, 0755) != 0) {
    snprintf(msg, sizeof msg, "error: prepare %s: %s", view, strerror(errno));
    return reply('M', id, msg);
  }
  int rfd = open(rootfs, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int efd = open(empty, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (rfd < 0 || efd < 0 || fstat(rfd, &st) != 0) {
    snprintf(msg, sizeof msg, "error: open %s: %s", rfd < 0 ? rootfs : empty, strerror(errno));
    if (rfd >= 0) close(rfd);
    if (efd >= 0) close(efd);
    return reply('M', id, msg);
  }
  snprintf(opts, sizeof opts, "lowerdir=/proc/self/fd/%d:/proc/self/fd/%d", rfd, efd);
  int ok = mount("crucible-root", view, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, opts) == 0;
  if (!ok) {
    char from[64];
    snprintf(from, sizeof from, "/proc/self/fd/%d", rfd);
    ok = mount(from, view, NULL, MS_BIND, NULL) == 0;
  }
  if (!ok) snprintf(msg, sizeof msg, "error: mount the rootfs view on %s: %s", view, strerror(errno));
  else snprintf(msg, sizeof msg, "root %llu %llu", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
  close(rfd);
  close(efd);
  reply('M', id, msg);
}

static void mount_scratch(uint32_t id, char **s, size_t n) {
  char msg[4608];
  if (n < 4) return reply('M', id, "error: malformed mount request");
  uid_t uid = (uid_t)strtoul(s[2], NULL, 10);
  gid_t gid = (gid_t)strtoul(s[3], NULL, 10);
  char opts[64];
  snprintf(opts, sizeof opts, "size=%sm,mode=0755", s[1]);
  if (mount("crucible-scratch", s[0], "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) {
    snprintf(msg, sizeof msg, "error: mount tmpfs on %s: %s", s[0], strerror(errno));
    return reply('M', id, msg);
  }
  const char *sub[2] = {"work", "tmp"};
  for (int i = 0; i < 2; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", s[0], sub[i]);
    if (mkdir(p, i ? 01777 : 0755) != 0 || chown(p, uid, gid) != 0) {
      snprintf(msg, sizeof msg, "error: prepare %s: %s", p, strerror(errno));
      return reply('M', id, msg);
    }
  }
  if (n < 5) return reply('M', id, "");
  mount_root_view(id, s[0], s[4]);
}

/* ---- bwrap processes --------------------------------------------------------------- */

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

typedef struct {
  uint32_t id;
  pid_t pid; /* 0: free slot */
  int info, block;
  int to_mover; /* write end: the child's pid (or -1) for the migration thread */
  char buf[256];
  size_t len;
  int reported; /* the child's pid was found (or bwrap failed before it) */
} Spawn;

/*
 * Moving a process into a cgroup-v1 group waits for an RCU grace period (often 5-15 ms
 * on a VM). The forked child joins the groups itself before it execs bwrap (so bwrap's
 * cgroup namespace is rooted at the sandbox's group); this thread then confirms bwrap and
 * its child are inside (writing them again is harmless and cheap right after a grace
 * period) and reports the child's pid.
 */
typedef struct {
  uint32_t id;
  pid_t pid;
  int from_main;
  int ndirs;
  char **dirs;
} MoveJob;

static int move_into(pid_t pid, int ndirs, char **dirs, char *err, size_t errlen) {
  for (int i = 0; i < ndirs; i++) {
    char p[4200], v[32];
    snprintf(p, sizeof p, "%s/cgroup.procs", dirs[i]);
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    int n = snprintf(v, sizeof v, "%d", (int)pid);
    if (fd < 0 || write(fd, v, (size_t)n) != n) {
      snprintf(err, errlen, "error: cannot move pid %d into %s: %s", (int)pid, dirs[i], strerror(errno));
      if (fd >= 0) close(fd);
      return -1;
    }
    close(fd);
  }
  return 0;
}

static void *move_main(void *arg) {
  MoveJob *j = arg;
  char err[4400];
  int child = -1, ok = move_into(j->pid, j->ndirs, j->dirs, err, sizeof err) == 0;
  if (read_full(j->from_main, &child, sizeof child) <= 0) child = -1;
  if (ok && child > 0 && move_into(child, j->ndirs, j->dirs, err, sizeof err) != 0) ok = 0;
  if (!ok) kill(j->pid, SIGKILL); /* never let an unconfined sandbox start */
  if (child <= 0) snprintf(err, sizeof err, "error: bwrap exited before the sandbox started");
  else if (ok) snprintf(err, sizeof err, "%d %d", (int)j->pid, child);
  reply('S', j->id, err);
  close(j->from_main);
  for (int i = 0; i < j->ndirs; i++) free(j->dirs[i]);
  free(j->dirs);
  free(j);
  return NULL;
}

/* hand the child's pid (or -1: none) to the migration thread, once */
static void tell_mover(Spawn *sp, int child) {
  if (sp->to_mover < 0) return;
  write_full(sp->to_mover, &child, sizeof child);
  close_fd(&sp->to_mover);
}

static Spawn spawns[MAX_SPAWNS];

static Spawn *find_spawn(uint32_t id) {
  for (int i = 0; i < MAX_SPAWNS; i++)
    if (spawns[i].pid && spawns[i].id == id) return &spawns[i];
  return NULL;
}

static void spawn_bwrap(uint32_t id, char **s, size_t n) {
  char msg[512];
  int ndirs = n > 6 ? atoi(s[6]) : -1;
  if (n < 8 || ndirs < 0 || ndirs > 16 || n < (size_t)(8 + ndirs) || n - 7 - (size_t)ndirs > MAX_ARGS)
    return reply('S', id, "error: malformed spawn request");
  Spawn *slot = NULL;
  for (int i = 0; i < MAX_SPAWNS && !slot; i++)
    if (!spawns[i].pid) slot = &spawns[i];
  if (!slot) return reply('S', id, "error: too many sandboxes in one worker");
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(s[0]) >= sizeof addr.sun_path) return reply('S', id, "error: control socket path too long");
  strcpy(addr.sun_path, s[0]);
  int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0 || connect(sock, (struct sockaddr *)&addr, sizeof addr) != 0 || write(sock, &id, 4) != 4) {
    snprintf(msg, sizeof msg, "error: connect to %s: %s", s[0], strerror(errno));
    if (sock >= 0) close(sock);
    return reply('S', id, msg);
  }
  int err = open(s[1], O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  int sec = open(s[2], O_RDONLY | O_CLOEXEC);
  int exe = open(s[3], O_RDONLY | O_CLOEXEC);
  int info[2] = {-1, -1}, block[2] = {-1, -1}, mover[2] = {-1, -1};
  if (err < 0 || sec < 0 || exe < 0 || pipe2(info, O_CLOEXEC) != 0 || pipe2(block, O_CLOEXEC) != 0 || pipe2(mover, O_CLOEXEC) != 0) {
    snprintf(msg, sizeof msg, "error: prepare sandbox fds: %s", strerror(errno));
    int fds[] = {sock, err, sec, exe, info[0], info[1], block[0], block[1], mover[0], mover[1]};
    for (int i = 0; i < 10; i++)
      if (fds[i] >= 0) close(fds[i]);
    return reply('S', id, msg);
  }
  uid_t uid = (uid_t)strtoul(s[4], NULL, 10);
  gid_t gid = (gid_t)strtoul(s[5], NULL, 10);
  char **dirs = &s[7];
  char **argv = &s[7 + ndirs];
  pid_t pid = fork();
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    /* move every source above the targets first, so no dup2 clobbers a later source */
    int src[7] = {sock, sock, err, sec, info[1], block[0], exe}, high[7];
    for (int i = 0; i < 7; i++)
      if ((high[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 64)) < 0) _exit(126);
    for (int i = 0; i < 7; i++)
      if (dup2(high[i], i) < 0) _exit(126);
    if (syscall(SYS_close_range, 7u, ~0u, 0u) != 0)
      for (int fd = 7; fd < 4096; fd++) close(fd);
    /*
     * Join the sandbox's cgroups before bwrap runs: its cgroup namespace (--unshare-cgroup)
     * is rooted where bwrap is when it clones, so joining later would show the sandbox its
     * host cgroup path (/crucible/<owner>.<id>) in /proc/self/cgroup. The migration thread's
     * writes that follow are then no-ops.
     */
    char why[4400];
    if (move_into(getpid(), ndirs, dirs, why, sizeof why) != 0) {
      dprintf(2, "crucible-launcher: %s\n", why);
      _exit(125);
    }
    if (getuid() == 0 && (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) {
      dprintf(2, "crucible-launcher: cannot switch to uid %u: %s\n", (unsigned)uid, strerror(errno));
      _exit(126);
    }
    if (chdir("/") != 0) _exit(126);
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    if (strchr(argv[0], '/')) execve(argv[0], argv, envp);
    else {
      /* a bare name is looked up where a spawn with that PATH would look */
      const char *path[] = {"/usr/bin", "/bin"};
      for (int i = 0; i < 2; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path[i], argv[0]);
        execve(p, argv, envp);
      }
    }
    dprintf(2, "crucible-launcher: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(sock);
  close(err);
  close(sec);
  close(exe);
  close(info[1]);
  close(block[0]);
  if (pid < 0) {
    snprintf(msg, sizeof msg, "error: fork: %s", strerror(errno));
    int fds[] = {info[0], block[1], mover[0], mover[1]};
    for (int i = 0; i < 4; i++) close(fds[i]);
    return reply('S', id, msg);
  }
  fcntl(info[0], F_SETFL, O_NONBLOCK);
  *slot = (Spawn){.id = id, .pid = pid, .info = info[0], .block = block[1], .to_mover = mover[1]};
  MoveJob *j = malloc(sizeof *j);
  char **copy = calloc((size_t)ndirs + 1, sizeof(char *));
  if (!j || !copy) _exit(70);
  for (int i = 0; i < ndirs; i++)
    if (!(copy[i] = strdup(dirs[i]))) _exit(70);
  *j = (MoveJob){.id = id, .pid = pid, .from_main = mover[0], .ndirs = ndirs, .dirs = copy};
  detach(move_main, j);
}

/*
 * bwrap's --info-fd carries {"child-pid": N, ...namespace ids}, written in several parts:
 * report the pid once it is complete, and keep draining to EOF (closing early would fail
 * bwrap's later writes).
 */
static void read_info(Spawn *sp) {
  char tmp[512];
  for (;;) {
    ssize_t r = read(sp->info, tmp, sizeof tmp);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) return;
    if (r <= 0) break; /* EOF: bwrap is done with it (or exited) */
    if (sp->reported) continue;
    size_t take = (size_t)r < sizeof sp->buf - 1 - sp->len ? (size_t)r : sizeof sp->buf - 1 - sp->len;
    memcpy(sp->buf + sp->len, tmp, take);
    sp->len += take;
    sp->buf[sp->len] = 0;
    char *k = strstr(sp->buf, "\"child-pid\"");
    char *c = k ? strchr(k, ':') : NULL;
    if (c && strpbrk(c, ",}\n")) {
      tell_mover(sp, (int)strtol(c + 1, NULL, 10));
      sp->reported = 1;
    }
  }
  close_fd(&sp->info);
  tell_mover(sp, -1); /* no child pid came: the thread reports the failure */
  sp->reported = 1;
}

static void reap(void) {
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, WNOHANG);
    if (p <= 0) return;
    for (int i = 0; i < MAX_SPAWNS; i++) {
      Spawn *sp = &spawns[i];
      if (sp->pid != p) continue;
      if (sp->info >= 0) read_info(sp); /* whatever it wrote before exiting */
      close_fd(&sp->info);
      tell_mover(sp, -1);
      char out[64];
      snprintf(out, sizeof out, "%d %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
      reply('D', sp->id, out);
      close_fd(&sp->block);
      sp->pid = 0;
    }
  }
}

static void kill_all(void) {
  for (int i = 0; i < MAX_SPAWNS; i++)
    if (spawns[i].pid) kill(spawns[i].pid, SIGKILL);
}

/* ---- requests ---------------------------------------------------------------------- */

static void handle(char *req, uint32_t len) {
  char op = req[0];
  uint32_t id;
  memcpy(&id, req + 1, 4);
  static char *strings[1u << 20];
  size_t n = 0;
  for (char *p = req + 5, *end = req + len; p < end && n + 1 < sizeof strings / sizeof *strings;) {
    char *nul = memchr(p, 0, (size_t)(end - p));
    if (!nul) break;
    strings[n++] = p;
    p = nul + 1;
  }
  strings[n] = NULL; /* ends the argv of a spawn */
  if (op == 'B') return set_baseline(req, strings, n); /* keeps req */
  if (op == 'V') n ? start_check(id, strings[0]) : reply('V', id, "need");
  else if (op == 'M') mount_scratch(id, strings, n);
  else if (op == 'S') spawn_bwrap(id, strings, n);
  else if (op == 'G' || op == 'K') {
    Spawn *sp = find_spawn(id);
    if (sp && op == 'K') kill(sp->pid, SIGKILL);
    if (sp && op == 'G' && sp->block >= 0) {
      if (write(sp->block, "x", 1) < 0) { /* bwrap gone: its exit is reported */ }
      close_fd(&sp->block);
    }
  }
  free(req);
}

int main(int argc, char **argv) {
  pid_t parent = argc > 1 ? (pid_t)strtol(argv[1], NULL, 10) : getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 0; /* the worker died before the line above */
  umask(0);
  signal(SIGPIPE, SIG_IGN);
  int sfd = sigchld_fd();
  if (sfd < 0) return 70;
  static struct pollfd pf[2 + MAX_SPAWNS];
  static Spawn *who[2 + MAX_SPAWNS];
  for (;;) {
    nfds_t n = 0;
    pf[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
    pf[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
    for (int i = 0; i < MAX_SPAWNS; i++) {
      if (spawns[i].pid && spawns[i].info >= 0) {
        who[n] = &spawns[i];
        pf[n++] = (struct pollfd){.fd = spawns[i].info, .events = POLLIN};
      }
    }
    if (poll(pf, n, -1) < 0) {
      if (errno == EINTR) continue;
      return 70;
    }
    if (pf[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) > 0) {
      }
      reap();
    }
    for (nfds_t i = 2; i < n; i++)
      if (pf[i].revents && who[i]->pid && who[i]->info == pf[i].fd) read_info(who[i]);
    if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      uint32_t len;
      int r = read_full(0, &len, 4);
      if (r <= 0 || len < 5 || len > MAX_REQUEST) break;
      char *req = malloc(len);
      if (!req || read_full(0, req, len) <= 0) break;
      handle(req, len);
    }
  }
  kill_all(); /* the worker is gone: so are its sandboxes */
  return 0;
}
