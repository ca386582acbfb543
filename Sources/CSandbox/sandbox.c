#define _GNU_SOURCE
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* Debian 12's linux/landlock.h is from Linux 6.1: the newer parts of the ABI, by value. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#define SB_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#define SB_ACCESS_NET_BIND_TCP (1ULL << 0)
#define SB_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define SB_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SB_SCOPE_SIGNAL (1ULL << 1)
#define SB_RULE_NET_PORT 2

struct sb_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};
struct sb_net_port_attr {
  uint64_t allowed_access;
  uint64_t port;
};

static int ruleset = -1;
static int abi = 0;
static uint64_t handled_fs = 0;
static int scoped = 0;

int sb_landlock_abi(void) {
  long version = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return version < 0 ? 0 : (int)version;
}

static uint64_t fs_access_for(int abi_version) {
  uint64_t access = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                    LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                    LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi_version >= 2) access |= LANDLOCK_ACCESS_FS_REFER;
  if (abi_version >= 3) access |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi_version >= 5) access |= SB_ACCESS_FS_IOCTL_DEV;
  return access;
}

int sb_begin(int restrict_network) {
  abi = sb_landlock_abi();
  if (abi <= 0) return -EOPNOTSUPP;
  struct sb_ruleset_attr attr = {0};
  handled_fs = fs_access_for(abi);
  attr.handled_access_fs = handled_fs;
  if (restrict_network && abi >= 4) attr.handled_access_net = SB_ACCESS_NET_BIND_TCP | SB_ACCESS_NET_CONNECT_TCP;
  if (abi >= 6) attr.scoped = SB_SCOPE_ABSTRACT_UNIX_SOCKET | SB_SCOPE_SIGNAL;
  /* The kernel takes the struct's size: older ABIs know only the leading fields. */
  size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
  long fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0) return -errno;
  ruleset = (int)fd;
  scoped = abi >= 6;
  return abi;
}

int sb_allow_path(const char *path, int access) {
  if (ruleset < 0) return -EBADF;
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return -errno;
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    close(fd);
    return -error;
  }
  uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
  uint64_t allowed = read;
  if (access == SB_READ_EXECUTE) allowed |= LANDLOCK_ACCESS_FS_EXECUTE;
  if (access == SB_READ_WRITE) allowed = handled_fs & ~LANDLOCK_ACCESS_FS_EXECUTE;
  /* Rights on a file are limited to those that make sense for a file. */
  if (!S_ISDIR(info.st_mode)) {
    allowed &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
               LANDLOCK_ACCESS_FS_TRUNCATE | SB_ACCESS_FS_IOCTL_DEV;
  }
  allowed &= handled_fs;
  struct landlock_path_beneath_attr rule = {.allowed_access = allowed, .parent_fd = fd};
  long result = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  int error = errno;
  close(fd);
  return result < 0 ? -error : 0;
}

int sb_allow_port(uint16_t port, int bind) {
  if (ruleset < 0) return -EBADF;
  if (abi < 4) return -EOPNOTSUPP;
  struct sb_net_port_attr rule = {.allowed_access = bind ? SB_ACCESS_NET_BIND_TCP : SB_ACCESS_NET_CONNECT_TCP,
                                  .port = port};
  long result = syscall(SYS_landlock_add_rule, ruleset, SB_RULE_NET_PORT, &rule, 0);
  return result < 0 ? -errno : 0;
}

int sb_enforce(void) {
  if (ruleset < 0) return -EBADF;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
  long result = syscall(SYS_landlock_restrict_self, ruleset, 0);
  int error = errno;
  close(ruleset);
  ruleset = -1;
  if (result == 0) sb_thread_proc_alias_enable();
  return result < 0 ? -error : 0;
}

int sb_scopes_signals(void) { return scoped; }

static _Atomic uint64_t refused = 0;
static _Atomic long last_refused = -1;

/* SIGSYS from SECCOMP_RET_TRAP: the call did not run; make it return -EPERM and count it. */
static void refused_call(int signal, siginfo_t *info, void *context) {
  (void)signal;
  ucontext_t *uc = context;
  atomic_fetch_add(&refused, 1);
  atomic_store(&last_refused, (long)info->si_syscall);
#if defined(__x86_64__)
  uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
  uc->uc_mcontext.regs[0] = (unsigned long long)(-EPERM);
#else
#error "sb: unsupported architecture"
#endif
}

uint64_t sb_refused_calls(void) { return atomic_load(&refused); }
long sb_last_refused_call(void) { return atomic_load(&last_refused); }

int sb_seccomp_install(int allow_unix_sockets) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = refused_call;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSYS, &action, NULL) != 0) return -errno;

  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (!filter) return -ENOMEM;
  /* Every thread, also those a library started before. */
  seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
  static const char *const refused_names[] = {
      "ptrace",        "process_vm_readv", "process_vm_writev", "mount",       "umount2",
      "bpf",           "perf_event_open",  "kexec_load",        "kexec_file_load", "init_module",
      "finit_module",  "delete_module",    "add_key",           "request_key", "keyctl",
      "unshare",       "setns",            "pivot_root",        "chroot",      "fsopen",
      "fsmount",       "move_mount",       "open_tree",         "fsconfig",    "fspick",
      "mount_setattr", "pidfd_getfd",      "userfaultfd",       "kcmp",        "quotactl",
      "swapon",        "swapoff",          "reboot",            "settimeofday", "clock_settime",
      "iopl",          "ioperm",           "lookup_dcookie",    "acct",
  };
  int status = 0;
  for (size_t i = 0; i < sizeof refused_names / sizeof refused_names[0] && status == 0; i++) {
    int number = seccomp_syscall_resolve_name(refused_names[i]);
    if (number == __NR_SCMP_ERROR) continue; /* not on this architecture */
    status = seccomp_rule_add(filter, SCMP_ACT_TRAP, number, 0);
  }
  /* New namespaces through clone(2) too; clone3's flags sit behind a pointer a filter cannot
   * read, so it answers ENOSYS and the C library falls back to clone(2). */
  static const uint64_t namespace_flags[] = {CLONE_NEWNS,  CLONE_NEWUTS, CLONE_NEWIPC,    CLONE_NEWUSER,
                                             CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP};
  for (size_t i = 0; i < sizeof namespace_flags / sizeof namespace_flags[0] && status == 0; i++) {
    status = seccomp_rule_add(filter, SCMP_ACT_TRAP, SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, namespace_flags[i], namespace_flags[i]));
  }
  if (status == 0) status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  /* Named Unix sockets (see sandbox.h): the family is socket(2)'s first argument. */
  if (status == 0 && !allow_unix_sockets) {
    status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
  }
  /* The trap handler stays ours: a plugin may not replace or ignore SIGSYS. */
  if (status == 0) {
    status = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(rt_sigaction), 1,
                              SCMP_A0(SCMP_CMP_EQ, SIGSYS));
  }
  if (status == 0) status = seccomp_load(filter);
  seccomp_release(filter);
  return status;
}

const char *sb_library_of_symbol(const char *symbol) {
  void *address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info;
  if (!address || dladdr(address, &info) == 0) return NULL;
  return info.dli_fname;
}
