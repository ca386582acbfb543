/* Containment of a plugin's descendants: only async-signal-safe calls (raw getdents64, open,
 * read, kill, waitpid), because this runs from a SIGTERM handler and from atexit. */
#define _GNU_SOURCE
#include "process_control.h"

#include <dirent.h>
#include <poll.h>
#include <errno.h>
#include <spawn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct linux_dirent64 {
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

static pid_t parse_pid(const char *name) {
  pid_t pid = 0;
  if (*name == 0) return 0;
  for (; *name; name++) {
    if (*name < '0' || *name > '9') return 0;
    pid = pid * 10 + (*name - '0');
  }
  return pid;
}

static int read_file(const char *path, char *buffer, int capacity) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  int total = 0;
  while (total < capacity - 1) {
    ssize_t got = read(fd, buffer + total, (size_t)(capacity - 1 - total));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    total += (int)got;
  }
  close(fd);
  buffer[total] = 0;
  return total;
}

static void format_path(char *out, pid_t pid, const char *leaf) {
  char digits[16];
  int count = 0;
  do {
    digits[count++] = (char)('0' + pid % 10);
    pid /= 10;
  } while (pid > 0);
  char *cursor = out;
  const char *prefix = "/proc/";
  while (*prefix) *cursor++ = *prefix++;
  while (count > 0) *cursor++ = digits[--count];
  *cursor++ = '/';
  while (*leaf) *cursor++ = *leaf++;
  *cursor = 0;
}

/* The parent pid from /proc/PID/stat: the field after the state, after the last ')'. */
static pid_t parent_of(pid_t pid) {
  char path[64], stat[512];
  format_path(path, pid, "stat");
  if (read_file(path, stat, sizeof stat) <= 0) return -1;
  char *end = strrchr(stat, ')');
  if (!end || end[1] != ' ' || end[2] == 0 || end[3] != ' ') return -1;
  pid_t parent = 0;
  for (const char *cursor = end + 4; *cursor >= '0' && *cursor <= '9'; cursor++) parent = parent * 10 + (*cursor - '0');
  return parent;
}

/* State, parent and session of PID from /proc/PID/stat ("PID (COMM) S PPID PGRP SESSION ...",
 * counted from the last ')': COMM is any bytes). Returns 0, or -1 when it cannot be read. */
static int stat_of(pid_t pid, char *state, pid_t *parent, pid_t *session) {
  char path[64], stat[512];
  format_path(path, pid, "stat");
  if (read_file(path, stat, sizeof stat) <= 0) return -1;
  char *cursor = strrchr(stat, ')');
  if (!cursor || cursor[1] != ' ' || cursor[2] == 0 || cursor[3] != ' ') return -1;
  *state = cursor[2];
  cursor += 4;
  long fields[3] = {0, 0, 0};
  for (int field = 0; field < 3; field++) {
    if (*cursor < '0' || *cursor > '9') return -1;
    for (; *cursor >= '0' && *cursor <= '9'; cursor++) fields[field] = fields[field] * 10 + (*cursor - '0');
    if (*cursor++ != ' ') return -1;
  }
  *parent = (pid_t)fields[0];
  *session = (pid_t)fields[2];
  return 0;
}

int pc_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int pc_eventfd_cloexec(void) { return eventfd(0, EFD_CLOEXEC); }

int pc_has_zombie_child(void) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return 0;
  return info.si_pid != 0;
}

int pc_spawnattr_new_session(posix_spawnattr_t *attributes) {
  short flags = 0;
  int status = posix_spawnattr_getflags(attributes, &flags);
  if (status == 0) status = posix_spawnattr_setflags(attributes, (short)(flags | POSIX_SPAWN_SETSID));
  return status;
}

int pc_is_subreaper(void) {
  int flag = 0;
  return prctl(PR_GET_CHILD_SUBREAPER, &flag, 0, 0, 0) == 0 && flag != 0;
}

static int environment_has(pid_t pid, const char *marker) {
  char path[64];
  static char environment[65536];
  format_path(path, pid, "environ");
  int length = read_file(path, environment, sizeof environment);
  if (length <= 0) return 0;
  size_t wanted = strlen(marker);
  for (int start = 0; start < length;) {
    size_t entry = strlen(environment + start);
    if (entry == wanted && memcmp(environment + start, marker, wanted) == 0) return 1;
    start += (int)entry + 1;
  }
  return 0;
}

/* Calls `visit` for every child of this process; returns how many it visited. */
static int for_each_child(int (*visit)(pid_t, const void *), const void *context) {
  pid_t self = getpid();
  int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[4096];
  int visited = 0;
  for (;;) {
    long got = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (got <= 0) break;
    for (long offset = 0; offset < got;) {
      struct linux_dirent64 *entry = (struct linux_dirent64 *)(buffer + offset);
      offset += entry->d_reclen;
      pid_t pid = parse_pid(entry->d_name);
      if (pid > 0 && pid != self && parent_of(pid) == self) visited += visit(pid, context);
    }
  }
  close(fd);
  return visited;
}

struct inherited {
  pid_t session;
  const pid_t *spare;
  int spare_count;
};

/* A child that ended (a zombie) outside this process's session and not one of `spare`. */
static int reap_if_inherited_zombie(pid_t pid, const void *context) {
  const struct inherited *wanted = context;
  char state = 0;
  pid_t parent = 0, session = 0;
  if (stat_of(pid, &state, &parent, &session) != 0 || state != 'Z' || session == wanted->session) return 0;
  for (int index = 0; index < wanted->spare_count; index++) {
    if (wanted->spare[index] == pid) return 0;
  }
  return waitpid(pid, NULL, WNOHANG) == pid;
}

int pc_reap_inherited_zombies(const pid_t *spare, int spare_count) {
  struct inherited wanted = {getsid(0), spare, spare_count};
  return for_each_child(reap_if_inherited_zombie, &wanted);
}

static int kill_and_reap(pid_t pid, const void *context) {
  (void)context;
  kill(pid, SIGKILL);
  while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
  return 1;
}

/* Set by a plugin host confined by Landlock with signal scoping: /proc lists no other process
 * to it, but kill(-1) reaches exactly its own descendants (its domain), none else. */
static volatile sig_atomic_t signals_scoped = 0;

void pc_signals_reach_only_descendants(void) { signals_scoped = 1; }

/* Kills every process of the scope and reaps the children; returns how many were reaped. */
static int kill_scope_and_reap(void) {
  kill(-1, SIGKILL);
  int reaped = 0;
  for (;;) {
    pid_t pid = waitpid(-1, NULL, 0);
    if (pid > 0) {
      reaped++;
    } else if (errno != EINTR) {
      break;
    }
  }
  return reaped;
}

int pc_kill_descendants(int rounds) {
  int killed = 0;
  for (int round = 0; signals_scoped && round < rounds; round++) {
    int now = kill_scope_and_reap();
    if (now == 0) return killed;
    killed += now;
  }
  for (int round = 0; round < rounds; round++) {
    int now = for_each_child(kill_and_reap, NULL);
    if (now == 0) break;
    killed += now;
  }
  return killed;
}

struct marked { const char *marker; pid_t spare; };

static int kill_if_marked(pid_t pid, const void *context) {
  const struct marked *wanted = context;
  if (pid == wanted->spare || !environment_has(pid, wanted->marker)) return 0;
  return kill_and_reap(pid, NULL);
}

int pc_kill_marked_children(const char *marker, pid_t spare) {
  struct marked wanted = {marker, spare};
  int killed = 0;
  /* A killed child's own children come back to us: repeat until a round finds none. */
  for (int round = 0; round < 50; round++) {
    int now = for_each_child(kill_if_marked, &wanted);
    if (now == 0) break;
    killed += now;
  }
  return killed;
}

static volatile sig_atomic_t deliberate_exit = 0;

void pc_host_exit_is_deliberate(void) { deliberate_exit = 1; }

static void on_terminate(int number) {
  (void)number;
  pc_kill_descendants(50);
  /* Die by the signal itself, so the hub reports "killed by SIGTERM". SIGTERM stays blocked
   * while the handler runs: a hub that dies with many threads sends the parent-death signal
   * once per thread it reparents us through, and a second one must not cut the sweep short. */
  signal(SIGTERM, SIG_DFL);
  sigset_t terminate;
  sigemptyset(&terminate);
  sigaddset(&terminate, SIGTERM);
  raise(SIGTERM);
  sigprocmask(SIG_UNBLOCK, &terminate, NULL);
  _exit(128 + SIGTERM);
}

/* on_exit, not atexit: the status is known. A plugin's exit(0) would read as a normal end
 * (not restarted under a transient policy): it becomes 70. A non-zero status stands. */
static void on_exit_guard(int status, void *argument) {
  (void)argument;
  pc_kill_descendants(50);
  if (!deliberate_exit && status == 0) {
    static const char text[] =
      "patchbay-plugin-host: the plugin called exit(0) itself; reporting it as a failure (code 70)\n";
    ssize_t ignored = write(2, text, sizeof text - 1);
    (void)ignored;
    _exit(70);
  }
}

void pc_install_host_exit_guards(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_terminate;
  action.sa_flags = 0;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGTERM, &action, NULL);
  on_exit(on_exit_guard, NULL);
}

void pc_reset_fatal_signals(void) {
  static const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  for (unsigned index = 0; index < sizeof fatal / sizeof fatal[0]; index++) sigaction(fatal[index], &action, NULL);
  sigset_t unblock;
  sigemptyset(&unblock);
  for (unsigned index = 0; index < sizeof fatal / sizeof fatal[0]; index++) sigaddset(&unblock, fatal[index]);
  sigprocmask(SIG_UNBLOCK, &unblock, NULL);
}

int pc_wait_for_end(pid_t pid, int timeout_ms) {
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return errno == ESRCH ? 1 : -1;
  struct pollfd entry = {.fd = fd, .events = POLLIN};
  int ready;
  do {
    ready = poll(&entry, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  close(fd);
  return ready > 0 ? 1 : (ready == 0 ? 0 : -1);
}

int pc_wait_for_threads_end(const pid_t *tids, int count, int timeout_ms) {
  enum { pidfd_thread = O_EXCL, most = 256 };
  struct pollfd entries[most];
  int open_count = 0;
  for (int index = 0; index < count && index < most; index++) {
    int fd = (int)syscall(SYS_pidfd_open, tids[index], pidfd_thread);
    if (fd >= 0) {
      entries[open_count++] = (struct pollfd){.fd = fd, .events = POLLIN};
    } else if (errno != ESRCH) {
      for (int opened = 0; opened < open_count; opened++) close(entries[opened].fd);
      return -1;
    }
  }
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long long deadline = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000 + timeout_ms;
  int waiting = open_count;
  while (waiting > 0) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long left = deadline - ((long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
    if (left <= 0) break;
    int ready = poll(entries, (nfds_t)open_count, (int)left);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    for (int index = 0; index < open_count; index++) {
      if (entries[index].fd >= 0 && entries[index].revents != 0) {
        close(entries[index].fd);
        /* A negative fd is skipped by poll: the thread has ended. */
        entries[index].fd = -1;
        waiting--;
      }
    }
  }
  for (int index = 0; index < open_count; index++) {
    if (entries[index].fd >= 0) close(entries[index].fd);
  }
  return waiting == 0 ? 1 : 0;
}

int pc_input_ledger_create(pc_input_ledger **out) {
  int fd = memfd_create("patchbay-input-ledger", MFD_CLOEXEC);
  if (fd < 0) return -1;
  if (ftruncate(fd, sizeof(pc_input_ledger)) != 0) {
    close(fd);
    return -1;
  }
  void *page = mmap(NULL, sizeof(pc_input_ledger), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (page == MAP_FAILED) {
    close(fd);
    return -1;
  }
  *out = page;
  return fd;
}

pc_input_ledger *pc_input_ledger_attach(int fd) {
  struct stat info;
  if (fstat(fd, &info) != 0 || info.st_size < (off_t)sizeof(pc_input_ledger)) return NULL;
  void *page = mmap(NULL, sizeof(pc_input_ledger), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return page == MAP_FAILED ? NULL : page;
}

void pc_input_ledger_release(pc_input_ledger *ledger) {
  if (ledger) munmap(ledger, sizeof(pc_input_ledger));
}

int pc_spawnattr_clean_signals(posix_spawnattr_t *attributes) {
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  int numbers[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD};
  for (unsigned i = 0; i < sizeof numbers / sizeof numbers[0]; i++) sigaddset(&defaults, numbers[i]);
  short flags = 0;
  int status = posix_spawnattr_getflags(attributes, &flags);
  if (status == 0) status = posix_spawnattr_setsigmask(attributes, &none);
  if (status == 0) status = posix_spawnattr_setsigdefault(attributes, &defaults);
  if (status == 0) status = posix_spawnattr_setflags(attributes, flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  return status;
}
