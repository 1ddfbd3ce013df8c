/*
 * What supervisor.c and launcher.c share: blocking whole-buffer I/O on their framed
 * pipes, and SIGCHLD as a file descriptor for their poll loops.
 */
#ifndef CRUCIBLE_FDIO_H
#define CRUCIBLE_FDIO_H
#include <errno.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* SIGCHLD blocked and delivered on a non-blocking signalfd (-1 on failure) */
static int sigchld_fd(void) {
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  return signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* 1: all n bytes read; 0: EOF first; -1: error */
static int read_full(int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r == 0) return 0;
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    got += (size_t)r;
  }
  return 1;
}

/* A failed write means the host end is gone: there is nothing left to serve, so exit. */
static void write_full(int fd, const void *buf, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(fd, (const char *)buf + done, n - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      _exit(0);
    }
    done += (size_t)w;
  }
}
#endif
