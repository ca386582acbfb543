#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* A thread's own /proc entry, under Landlock.
 *
 * The sandbox grants /proc/self (the process's /proc/PID), but a thread other than the first
 * also has a top-level /proc/TID of its own, a sibling of /proc/PID that no rule can name
 * ahead of time (the thread does not exist yet when the host confines itself). libdispatch's
 * worker-pool monitor (every second, while a global queue has waiting work) opens
 * /proc/TID/stat for each of its workers and crashes the process (a trap: SIGILL) when that
 * open fails. So this executable defines open(2), which libdispatch and every library loaded
 * later resolve to: it opens the path as asked, and only once confined, when that was refused
 * with EACCES for "/proc/N/...", it tries the same file as "/proc/self/task/N/...", which
 * exists only when N is a thread of this process: nothing outside /proc/self is reached. */

static atomic_bool aliasing = false;

void sb_thread_proc_alias_enable(void) { atomic_store(&aliasing, true); }

/* "/proc/N/REST" -> "/proc/self/task/N/REST"; 0 when path is not of that form. */
static int own_thread_alias(const char *path, char *alias, size_t size) {
  static const char prefix[] = "/proc/";
  if (strncmp(path, prefix, sizeof prefix - 1) != 0) return 0;
  const char *digits = path + sizeof prefix - 1;
  const char *end = digits;
  while (*end >= '0' && *end <= '9') end++;
  if (end == digits || *end != '/') return 0;
  int length = snprintf(alias, size, "/proc/self/task/%s", digits);
  return length > 0 && (size_t)length < size;
}

int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
    va_list arguments;
    va_start(arguments, flags);
    mode = va_arg(arguments, mode_t);
    va_end(arguments);
  }
  int fd = openat(AT_FDCWD, path, flags, mode);
  if (fd >= 0 || errno != EACCES || !atomic_load(&aliasing)) return fd;
  char alias[256];
  if (!own_thread_alias(path, alias, sizeof alias)) return fd;
  int other = openat(AT_FDCWD, alias, flags, mode);
  if (other < 0) errno = EACCES; /* not one of ours: the refusal stands */
  return other;
}
