/*
 * crucible sandbox supervisor: PID 1 of a warm bwrap sandbox (see supervisor.ts).
 *
 * bwrap starts it once per sandbox (`--as-pid-1`), inside all of the sandbox's namespaces,
 * its seccomp filter and its cgroup. It then runs one command per request from the host:
 * fork, setsid, exec; relays the command's stdout/stderr (up to a cap, counting the rest);
 * and when the command exits, SIGKILLs every other process in the PID namespace (daemons,
 * `setsid`/`nohup` children) before it reports the exit, so nothing outlives an exec.
 *
 * Why PID 1: the kernel ignores SIGKILL/SIGSTOP sent to a namespace's init from inside the
 * namespace, and kill(-1) skips it, so sandboxed code can neither kill nor stop it. It is
 * also non-dumpable, so the sandbox's uid cannot open its /proc fds (its control pipes).
 *
 * Protocol (little-endian). Host -> supervisor, on fd 0: u32 length, then a payload whose
 * first byte is the request:
 *   'X' exec: u32 outCap, u32 argc, u32 envc, u32 stdinLen, then NUL-terminated cwd, argv,
 *       env ("K=V"), then stdinLen bytes of stdin.
 *   'K' kill: SIGKILL everything but PID 1 now (the host's wall-clock timeout).
 *   'W' wipe: remove what a command may leave outside the scratch dirs (files in /dev and
 *       /dev/shm, SysV IPC objects) and report whether /dev still matches its baseline.
 * Supervisor -> host, on fd 1: frames of u8 type, u32 length, payload:
 *   'R' ready; 'O'/'E' stdout/stderr bytes; 'F' exec failed (message, followed by 'X');
 *   'X' exited: "code signal utime_us stime_us maxrss_kb outTotal errTotal";
 *   'W' wiped: "clean" or "dirty <what>".
 * Built by supervisor.ts with the host's gcc (static); no libraries needed in the sandbox.
 *
 * `--user UID:GID` (gVisor, see gvisor.ts): the supervisor itself runs as the container's
 * uid 0 with only CAP_KILL, CAP_SETUID and CAP_SETGID, and every command (and the wipe's
 * removals) runs as UID:GID. gVisor does not shield a namespace's init from SIGKILL/SIGSTOP
 * sent from inside it, so there a different uid is what keeps commands from killing,
 * stopping or reading the supervisor. Without the flag (bwrap) nothing changes.
 *
 * `--wipe-scratch` (microVM, see microvm.ts): the wipe also empties /work and /tmp, as the
 * supervisor's uid (the guest's root), since there the scratch is the guest's own disk
 * and the host cannot reach it. Links are never followed (remove_tree_at).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdio.h"

extern char **environ;

#define MAX_REQUEST (256u * 1024 * 1024 + 1024 * 1024)
#define CHUNK 65536

/* --user UID:GID: what commands run as (drop_ids set); otherwise they keep the supervisor's */
static int drop_ids;
/* --wipe-scratch: 'W' also empties /work and /tmp */
static int wipe_scratch;
static uid_t run_uid;
static gid_t run_gid;

/* In a child: become the commands' uid/gid (no groups, every capability gone); 0 on success. */
static int drop_privileges(void) {
  if (!drop_ids) return 0;
  if (setgroups(0, NULL) != 0 || setresgid(run_gid, run_gid, run_gid) != 0 || setresuid(run_uid, run_uid, run_uid) != 0) return -1;
  return 0;
}

static void fatal(const char *what) {
  dprintf(2, "crucible-supervisor: %s: %s\n", what, strerror(errno));
  _exit(70);
}

static void frame(char type, const void *p, uint32_t n) {
  char h[5];
  h[0] = type;
  memcpy(h + 1, &n, 4);
  write_full(1, h, 5);
  if (n) write_full(1, p, n);
}

static void frame_str(char type, const char *s) { frame(type, s, (uint32_t)strlen(s)); }

static void kill_others(void) {
  /* from PID 1 this reaches every other process in the namespace, atomically w.r.t. fork */
  kill(-1, SIGKILL);
}

/* Reap every zombie; returns the status of `main` when it was among them. */
static void reap(pid_t main_pid, int *main_done, int *main_status, struct rusage *ru) {
  for (;;) {
    int st;
    struct rusage r;
    pid_t p = wait4(-1, &st, WNOHANG, &r);
    if (p <= 0) return;
    if (p == main_pid && !*main_done) {
      *main_done = 1;
      *main_status = st;
      *ru = r;
    }
  }
}

static uint32_t u32at(const char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static void run_exec(char *req, uint32_t len, int sfd) {
  if (len < 17) {
    frame_str('F', "malformed exec request");
    frame_str('X', "-1 0 0 0 0 0 0");
    return;
  }
  uint32_t cap = u32at(req + 1), argc = u32at(req + 5), envc = u32at(req + 9), stdin_len = u32at(req + 13);
  char *p = req + 17, *end = req + len;
  if (stdin_len > (uint32_t)(end - p) || argc == 0 || argc > 1u << 20 || envc > 1u << 20) {
    frame_str('F', "malformed exec request");
    frame_str('X', "-1 0 0 0 0 0 0");
    return;
  }
  char *strings_end = end - stdin_len;
  char **argv = calloc(argc + 1, sizeof(char *)), **envp = calloc(envc + 1, sizeof(char *));
  if (!argv || !envp) fatal("calloc");
  char *cwd = p;
  int ok = 1;
  uint32_t i;
  char *nul0 = memchr(p, 0, (size_t)(strings_end - p));
  if (!nul0) ok = 0;
  else p = nul0 + 1;
  for (i = 0; ok && i < argc + envc; i++) {
    char *nul = p < strings_end ? memchr(p, 0, (size_t)(strings_end - p)) : NULL;
    if (!nul) { ok = 0; break; }
    if (i < argc) argv[i] = p; else envp[i - argc] = p;
    p = nul + 1;
  }
  if (!ok) {
    free(argv);
    free(envp);
    frame_str('F', "malformed exec request");
    frame_str('X', "-1 0 0 0 0 0 0");
    return;
  }
  const char *in_data = strings_end;

  int in[2], out[2], err[2], ep[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) fatal("pipe2");
  pid_t pid = fork();
  if (pid < 0) {
    char msg[256];
    snprintf(msg, sizeof msg, "fork: %s", strerror(errno));
    frame_str('F', msg);
    frame_str('X', "-1 0 0 0 0 0 0");
    close(in[0]); close(in[1]); close(out[0]); close(out[1]); close(err[0]); close(err[1]); close(ep[0]); close(ep[1]);
    free(argv);
    free(envp);
    return;
  }
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    setsid(); /* like bwrap's --new-session: no controlling terminal to inject into */
    const char *what = "chdir", *obj = cwd;
    if (drop_privileges() != 0) {
      what = "drop privileges to";
      obj = "--user";
    } else if (chdir(cwd) == 0) {
      environ = envp; /* execvp searches the command's PATH, not the supervisor's */
      execvp(argv[0], argv);
      what = "execvp";
      obj = argv[0];
    }
    int e = errno;
    char msg[512];
    int n = snprintf(msg, sizeof msg, "%s %s: %s", what, obj, strerror(e));
    (void)!write(ep[1], msg, (size_t)n);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  close(ep[1]);
  free(argv);
  free(envp);

  /* the child's exec closes ep (O_CLOEXEC): EOF means it is running, bytes mean it failed */
  char emsg[512];
  ssize_t en;
  do en = read(ep[0], emsg, sizeof emsg - 1); while (en < 0 && errno == EINTR);
  close(ep[0]);
  if (en > 0) {
    emsg[en] = 0;
    frame_str('F', emsg);
  }

  set_nonblock(in[1]);
  set_nonblock(out[0]);
  set_nonblock(err[0]);
  uint32_t in_off = 0;
  int in_fd = in[1];
  if (stdin_len == 0 || en > 0) {
    close(in_fd);
    in_fd = -1;
  }
  int fds[2] = {out[0], err[0]};
  uint64_t total[2] = {0, 0};
  int main_done = 0, main_status = 0, killed_rest = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  static char buf[CHUNK];

  while (fds[0] >= 0 || fds[1] >= 0 || !main_done) {
    struct pollfd pf[5];
    int n = 0, idx_in = -1, idx_ctl, idx_sig, idx_o[2] = {-1, -1};
    for (int s = 0; s < 2; s++) if (fds[s] >= 0) { idx_o[s] = n; pf[n].fd = fds[s]; pf[n++].events = POLLIN; }
    if (in_fd >= 0) { idx_in = n; pf[n].fd = in_fd; pf[n++].events = POLLOUT; }
    idx_ctl = n; pf[n].fd = 0; pf[n++].events = POLLIN;
    idx_sig = n; pf[n].fd = sfd; pf[n++].events = POLLIN;
    if (poll(pf, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      fatal("poll");
    }
    for (int s = 0; s < 2; s++) {
      if (idx_o[s] < 0 || !(pf[idx_o[s]].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      for (;;) {
        ssize_t r = read(fds[s], buf, sizeof buf);
        if (r > 0) {
          uint64_t room = total[s] < cap ? cap - total[s] : 0;
          if (room) frame(s ? 'E' : 'O', buf, (uint32_t)((uint64_t)r < room ? (uint64_t)r : room));
          total[s] += (uint64_t)r;
          continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) break;
        close(fds[s]);
        fds[s] = -1;
        break;
      }
    }
    if (idx_in >= 0 && (pf[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(in_fd, in_data + in_off, stdin_len - in_off);
      if (w > 0) in_off += (uint32_t)w;
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || in_off >= stdin_len) {
        close(in_fd);
        in_fd = -1;
      }
    }
    if (pf[idx_ctl].revents & (POLLIN | POLLHUP | POLLERR)) {
      uint32_t clen;
      int r = read_full(0, &clen, 4);
      if (r <= 0) _exit(0); /* host gone */
      char c = 0, skip[256];
      for (uint32_t k = 0; k < clen;) {
        uint32_t want = clen - k < sizeof skip ? clen - k : (uint32_t)sizeof skip;
        if (read_full(0, skip, want) <= 0) _exit(0);
        if (k == 0) c = skip[0];
        k += want;
      }
      if (c == 'K') kill_others(); /* anything else mid-exec is a host bug: ignored */
    }
    if (pf[idx_sig].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == sizeof si) {}
      reap(pid, &main_done, &main_status, &ru);
    }
    if (main_done && !killed_rest) {
      /* whatever the command left behind dies with it; their pipe ends close, so EOF follows */
      killed_rest = 1;
      kill_others();
      if (in_fd >= 0) { close(in_fd); in_fd = -1; }
    }
  }
  /* every other process is SIGKILLed: wait until they are all reaped */
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, 0);
    if (p < 0 && errno == EINTR) continue;
    if (p < 0) break;
  }
  char msg[200];
  int code = WIFEXITED(main_status) ? WEXITSTATUS(main_status) : -1;
  int sig = WIFSIGNALED(main_status) ? WTERMSIG(main_status) : 0;
  snprintf(msg, sizeof msg, "%d %d %lld %lld %ld %llu %llu", code, sig,
           (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec, (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec,
           ru.ru_maxrss, (unsigned long long)total[0], (unsigned long long)total[1]);
  frame_str('X', msg);
}

/* ---- wipe: what a command may leave outside /work and /tmp ---- */

static void remove_tree_at(int dirfd, const char *name);

/* Remove everything inside the directory open as fd, and close fd. */
static void remove_children(int fd) {
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  struct dirent *e;
  while ((e = readdir(d))) if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) remove_tree_at(fd, e->d_name);
  closedir(d);
}

static void remove_tree_at(int dirfd, const char *name) {
  if (unlinkat(dirfd, name, 0) == 0) return;
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) remove_children(fd);
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

#define MAX_DEV 64
static struct { char name[64]; struct stat st; char target[64]; } dev_base[MAX_DEV];
static int dev_count;

static int dev_entry(const char *name, struct stat *st, char *target) {
  char path[128];
  snprintf(path, sizeof path, "/dev/%.63s", name); /* names are under 64 bytes */
  if (lstat(path, st) != 0) return -1;
  target[0] = 0;
  if (S_ISLNK(st->st_mode)) {
    ssize_t n = readlink(path, target, 63);
    target[n > 0 ? n : 0] = 0;
  }
  return 0;
}

static void dev_baseline(void) {
  DIR *d = opendir("/dev");
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) && dev_count < MAX_DEV) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || strlen(e->d_name) >= 64) continue;
    if (dev_entry(e->d_name, &dev_base[dev_count].st, dev_base[dev_count].target) == 0) {
      strcpy(dev_base[dev_count].name, e->d_name);
      dev_count++;
    }
  }
  closedir(d);
}

static void remove_ipc(const char *file, int kind) {
  FILE *f = fopen(file, "re");
  if (!f) return;
  char line[512];
  if (!fgets(line, sizeof line, f)) { fclose(f); return; } /* header */
  while (fgets(line, sizeof line, f)) {
    long key, id;
    if (sscanf(line, "%ld %ld", &key, &id) != 2) continue;
    if (kind == 0) shmctl((int)id, IPC_RMID, NULL);
    else if (kind == 1) msgctl((int)id, IPC_RMID, NULL);
    else semctl((int)id, 0, IPC_RMID);
  }
  fclose(f);
}

/* SysV IPC objects still there (counted by the kernel; gVisor has no /proc/sysvipc to list them) */
static int ipc_left(void) {
  struct shm_info si;
  struct msginfo mi;
  union { struct seminfo s; char pad[128]; } se; /* semctl's fourth argument, by its address */
  memset(&si, 0, sizeof si);
  memset(&mi, 0, sizeof mi);
  memset(&se, 0, sizeof se);
  int n = 0;
  if (shmctl(0, SHM_INFO, (struct shmid_ds *)(void *)&si) >= 0) n += si.used_ids;
  if (msgctl(0, MSG_INFO, (struct msqid_ds *)(void *)&mi) >= 0) n += mi.msgpool;
  if (semctl(0, 0, SEM_INFO, &se.s) >= 0) n += se.s.semusz;
  return n;
}

/* What a command may leave outside scratch, removed with the commands' own rights. */
static void wipe_leftovers(void) {
  int devfd = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (devfd >= 0) {
    /* files added under /dev (a tmpfs the sandbox user owns) go; /dev/shm is emptied */
    DIR *d = fdopendir(dup(devfd));
    if (d) {
      struct dirent *e;
      while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        int known = 0;
        for (int i = 0; i < dev_count; i++) if (!strcmp(dev_base[i].name, e->d_name)) known = 1;
        if (!known) remove_tree_at(devfd, e->d_name);
      }
      closedir(d);
    }
    int shm = openat(devfd, "shm", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (shm >= 0) remove_children(shm);
    close(devfd);
  }
  remove_ipc("/proc/sysvipc/shm", 0);
  remove_ipc("/proc/sysvipc/msg", 1);
  remove_ipc("/proc/sysvipc/sem", 2);
}

static void run_wipe(void) {
  char dirty[256] = "";
  if (wipe_scratch) {
    static const char *const dirs[] = {"/work", "/tmp"};
    for (int i = 0; i < 2; i++) {
      int fd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) remove_children(fd);
    }
  }
  if (!drop_ids) {
    wipe_leftovers();
  } else {
    /* /dev/shm is sticky and IPC objects belong to their creator: remove them as the commands' uid */
    pid_t pid = fork();
    if (pid == 0) {
      if (drop_privileges() == 0) wipe_leftovers();
      _exit(0);
    }
    if (pid > 0) {
      int st;
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    }
  }
  /* a baseline entry replaced, re-linked or re-moded cannot be restored without privileges */
  for (int i = 0; i < dev_count; i++) {
    struct stat st;
    char target[64];
    if (dev_entry(dev_base[i].name, &st, target) != 0 || st.st_ino != dev_base[i].st.st_ino || st.st_mode != dev_base[i].st.st_mode ||
        st.st_rdev != dev_base[i].st.st_rdev || strcmp(target, dev_base[i].target)) {
      /* names are under 64 bytes (dev_baseline); the precision tells the compiler so */
      snprintf(dirty, sizeof dirty, "dirty /dev/%.63s changed", dev_base[i].name);
      break;
    }
  }
  /* where objects could not be listed (gVisor) or removed, the sandbox is restarted instead */
  int left = ipc_left();
  if (!dirty[0] && left > 0) snprintf(dirty, sizeof dirty, "dirty %d SysV IPC objects left", left);
  frame_str('W', dirty[0] ? dirty : "clean");
}

int main(int argc, char **argv) {
  prctl(PR_SET_DUMPABLE, 0);
  if (argc == 4 && strcmp(argv[3], "--wipe-scratch") == 0) {
    wipe_scratch = 1;
    argc = 3;
  }
  if (argc == 3 && strcmp(argv[1], "--user") == 0) {
    unsigned u, g;
    char end;
    if (sscanf(argv[2], "%u:%u%c", &u, &g, &end) != 2) {
      dprintf(2, "crucible-supervisor: --user wants UID:GID, not %s\n", argv[2]);
      return 64;
    }
    drop_ids = 1;
    run_uid = (uid_t)u;
    run_gid = (gid_t)g;
  } else if (argc != 1) {
    dprintf(2, "crucible-supervisor: usage: crucible-supervisor [--user UID:GID [--wipe-scratch]]\n");
    return 64;
  }
  /* only the control pipes (0, 1) and the diagnostics pipe (2) stay open */
  if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) for (int fd = 3; fd < 4096; fd++) close(fd);
  signal(SIGPIPE, SIG_IGN);
  int sfd = sigchld_fd();
  if (sfd < 0) fatal("signalfd");
  if (chdir("/") != 0) fatal("chdir /");
  dev_baseline();
  frame_str('R', "ready");
  for (;;) {
    uint32_t len;
    int r = read_full(0, &len, 4);
    if (r <= 0) return 0;
    if (len == 0 || len > MAX_REQUEST) {
      dprintf(2, "crucible-supervisor: request of %u bytes refused\n", len);
      return 71;
    }
    char *req = malloc(len);
    if (!req) fatal("malloc");
    if (read_full(0, req, len) <= 0) return 0;
    if (req[0] == 'X') run_exec(req, len, sfd);
    else if (req[0] == 'K') kill_others();
    else if (req[0] == 'W') run_wipe();
    free(req);
    /* zombies of processes killed between requests */
    int d = 0, s = 0;
    struct rusage ru;
    reap(-2, &d, &s, &ru);
  }
}
