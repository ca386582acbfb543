/*
 * LD_PRELOAD for `patchbay run` under valgrind 3.19 (Debian 12's), for the benchmark's
 * instruction count. Three things in a Swift 6 program stop valgrind 3.19, none of them the
 * hub's fault; this library works around each without changing what the hub does per message:
 *
 * 1. An async `main` ends in libdispatch's dispatch_main(), which pthread_exit()s the main
 *    thread and parks it in sigsuspend() from a TSD destructor: valgrind dies there with an
 *    internal SIGSEGV. Here dispatch_main() drains the main queue itself, the way
 *    CoreFoundation's run loop does (the main queue's eventfd and its drain function).
 * 2. Foundation's Process adds a close action for every open descriptor, valgrind's own
 *    (above the limit it reports) included, and posix_spawn_file_actions_addclose() refuses
 *    those with EBADF: the hub's TOML-checking child could not start. Such a close is skipped.
 * 3. That child is spawned as /proc/self/exe, which under valgrind is valgrind's tool: the
 *    path becomes the hub's own (valgrind reports it for readlink).
 * (The DWARF 5 debug info of the Swift 6.3 binaries stops valgrind's reader too: the benchmark
 * runs a copy of the hub with `objcopy --strip-debug`; the symbol table stays.)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int _dispatch_get_main_queue_handle_4CF(void);
void _dispatch_main_queue_callback_4CF(void *);

void dispatch_main(void) {
  /* The hub's children (plugin hosts, the TOML check) run natively, without this library. Not
   * in a constructor: valgrind's launcher loads this library too and would drop it before it
   * starts the hub. Everything the hub does runs after this call. */
  unsetenv("LD_PRELOAD");
  int fd = _dispatch_get_main_queue_handle_4CF();
  for (;;) {
    struct pollfd p = {fd, POLLIN, 0};
    poll(&p, 1, 100);
    uint64_t wakeups;
    if ((p.revents & POLLIN) && read(fd, &wakeups, sizeof wakeups) < 0) { /* drained below anyway */ }
    _dispatch_main_queue_callback_4CF(NULL);
  }
}

int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *actions, int fd) {
  static int (*real)(posix_spawn_file_actions_t *, int);
  if (!real) real = (int (*)(posix_spawn_file_actions_t *, int))dlsym(RTLD_NEXT, "posix_spawn_file_actions_addclose");
  int status = real(actions, fd);
  return status == EBADF ? 0 : status;
}

typedef int (*spawn_function)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                              char *const[], char *const[]);

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                const posix_spawnattr_t *attributes, char *const argv[], char *const envp[]) {
  static spawn_function real;
  if (!real) real = (spawn_function)dlsym(RTLD_NEXT, "posix_spawn");
  char own[PATH_MAX];
  if (strcmp(path, "/proc/self/exe") == 0) {
    ssize_t n = readlink("/proc/self/exe", own, sizeof own - 1);
    if (n > 0) {
      own[n] = 0;
      path = own;
    }
  }
  return real(pid, path, actions, attributes, argv, envp);
}
