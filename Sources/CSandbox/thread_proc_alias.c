#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <dlfcn.h>

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

/* The mode argument, present only when the flags create a file. */
#define CREATION_MODE(flags, mode)                                      \
  do {                                                                  \
    if (((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE) {    \
      va_list arguments;                                                \
      va_start(arguments, flags);                                       \
      mode = va_arg(arguments, mode_t);                                 \
      va_end(arguments);                                                \
    }                                                                   \
  } while (0)

/* openat(2) itself, not through the definitions below (they interpose on libc's). */
static int raw_openat(int directory, const char *path, int flags, mode_t mode) {
  return (int)syscall(SYS_openat, directory, path, flags | O_LARGEFILE, mode);
}

/* Retries a refused "/proc/N/..." as the process's own thread N; other refusals stand. */
static int open_or_own_thread(int directory, const char *path, int flags, mode_t mode) {
  int fd = raw_openat(directory, path, flags, mode);
  if (fd >= 0 || errno != EACCES || !atomic_load(&aliasing)) return fd;
  char alias[256];
  if (!own_thread_alias(path, alias, sizeof alias)) return fd;
  int other = raw_openat(AT_FDCWD, alias, flags, mode);
  if (other < 0) errno = EACCES; /* not one of ours: the refusal stands */
  return other;
}

/* Every entry point a library may call, so that none of them bypasses the alias: open and
 * openat with their 64-bit names (Rust's std and C built with _FILE_OFFSET_BITS=64 call
 * those), and fopen (glibc's fopen opens through an internal call that open() does not
 * see). */
int open(const char *path, int flags, ...) {
  mode_t mode = 0;
  CREATION_MODE(flags, mode);
  return open_or_own_thread(AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) {
  mode_t mode = 0;
  CREATION_MODE(flags, mode);
  return open_or_own_thread(AT_FDCWD, path, flags, mode);
}

int openat(int directory, const char *path, int flags, ...) {
  mode_t mode = 0;
  CREATION_MODE(flags, mode);
  return open_or_own_thread(directory, path, flags, mode);
}

int openat64(int directory, const char *path, int flags, ...) {
  mode_t mode = 0;
  CREATION_MODE(flags, mode);
  return open_or_own_thread(directory, path, flags, mode);
}

typedef FILE *(*fopen_function)(const char *, const char *);

static FILE *fopen_or_own_thread(const char *symbol, const char *path, const char *mode) {
  static _Atomic(fopen_function) found[2];
  _Atomic(fopen_function) *slot = &found[strcmp(symbol, "fopen") == 0 ? 0 : 1];
  fopen_function next = atomic_load(slot);
  if (!next) atomic_store(slot, next = (fopen_function)dlsym(RTLD_NEXT, symbol));
  if (!next) {
    errno = ENOSYS;
    return NULL;
  }
  FILE *file = next(path, mode);
  if (file || errno != EACCES || !atomic_load(&aliasing)) return file;
  char alias[256];
  if (!own_thread_alias(path, alias, sizeof alias)) return file;
  file = next(alias, mode);
  if (!file) errno = EACCES;
  return file;
}

FILE *fopen(const char *path, const char *mode) { return fopen_or_own_thread("fopen", path, mode); }

FILE *fopen64(const char *path, const char *mode) { return fopen_or_own_thread("fopen64", path, mode); }
