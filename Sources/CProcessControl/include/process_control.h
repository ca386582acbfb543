/* Small Linux process controls Swift's Glibc module does not expose, and the containment of a
 * plugin's descendants, which must run inside signal handlers and atexit (hence C). */
#ifndef PATCHBAY_PROCESS_CONTROL_H
#define PATCHBAY_PROCESS_CONTROL_H

#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <stdint.h>
#include <sys/types.h>

/* Deliver `signal` to this process when its parent dies (PR_SET_PDEATHSIG). Linux ties this to
 * the parent *thread* that spawned us: the hub spawns from one long-lived thread for that reason. */
static inline int pc_set_parent_death_signal(int signal) { return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0); }

/* struct ucred, which needs _GNU_SOURCE: who connected to a Unix socket (SO_PEERCRED, as at
 * connect time). */
typedef struct pc_peer {
  pid_t pid;
  uid_t uid;
  gid_t gid;
} pc_peer;
static inline int pc_peer_credentials(int socket, pc_peer *peer) {
  socklen_t length = sizeof *peer;
  return getsockopt(socket, SOL_SOCKET, SO_PEERCRED, peer, &length);
}

/* Orphaned descendants are reparented to this process instead of init (PR_SET_CHILD_SUBREAPER). */
static inline int pc_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/* SIGKILLs and reaps every child of this process, again and again as grandchildren are
 * reparented to it (a subreaper), until none is left or `rounds` are used up. Only
 * async-signal-safe calls: usable from a signal handler and from atexit. Returns how many
 * processes it killed. */
/* For a plugin host confined with Landlock's signal scoping (only then): descendants are
 * killed by kill(-1), which reaches only them, since /proc no longer lists them. */
void pc_signals_reach_only_descendants(void);
int pc_kill_descendants(int rounds);

/* pipe2(O_CLOEXEC) and eventfd(EFD_CLOEXEC), which Swift's Glibc module does not import
 * (they need _GNU_SOURCE). */
int pc_pipe_cloexec(int fds[2]);
int pc_eventfd_cloexec(void);

/* Whether some child of this process has ended and waits to be reaped (waitid with WNOWAIT:
 * nothing is reaped). One system call: cheap enough for a once-a-second check. */
int pc_has_zombie_child(void);

/* Reaps the ended children of this process (a subreaper) that it inherited: zombies whose
 * session is not this process's own, except the pids in `spare` (the plugin hosts it spawned
 * itself, each reaped by its own waiter). A plugin host runs in a session of its own, so
 * whatever a plugin forks is never in the hub's session and cannot join it; the hub's other
 * children (swift-subprocess's) are in the hub's session and are left to their owners.
 * Returns how many it reaped. */
int pc_reap_inherited_zombies(const pid_t *spare, int spare_count);

/* Adds POSIX_SPAWN_SETSID: the child starts a session (and process group) of its own. */
int pc_spawnattr_new_session(posix_spawnattr_t *attributes);

/* Whether this process is a child subreaper (PR_GET_CHILD_SUBREAPER). */
int pc_is_subreaper(void);

/* SIGKILLs and reaps the children of this process (a subreaper) whose environment holds
 * `marker` (for example "PATCHBAY_INSTANCE=bedside"), except `spare`. Returns how many. */
int pc_kill_marked_children(const char *marker, pid_t spare);

/* The plugin host's last line of defence: SIGTERM (from the hub, or the parent-death signal)
 * kills the plugin's descendants and dies by SIGTERM; an exit(0) that the host did not ask for
 * (a plugin calling exit) ends with status 70 instead of pretending success. Every way out
 * kills the descendants first. */
void pc_install_host_exit_guards(void);

/* Fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS) back to their
 * defaults, unblocked: a plugin's crash, or its raise(SIGSEGV), ends the host at once and the
 * hub sees the signal. The Swift runtime's crash handler would otherwise catch them (it returns
 * from a raised signal, and prints pages of backtrace and registers per crash). */
void pc_reset_fatal_signals(void);

/* The host itself is ending the process now (its own exit status stands). */
void pc_host_exit_is_deliberate(void);

/* Waits up to `timeout_ms` for child `pid` to end, without reaping it (a pidfd polled for
 * readability). Returns 1 when it has ended, 0 on timeout, -1 when it cannot tell. */
int pc_wait_for_end(pid_t pid, int timeout_ms);

/* Waits up to `timeout_ms` for the threads `tids` of this process to end (one pidfd per
 * thread, PIDFD_THREAD, polled for readability; at most the first 256). Returns 1 when they
 * have all ended, 0 on timeout, -1 when the kernel cannot tell (PIDFD_THREAD is Linux 6.9+). */
int pc_wait_for_threads_end(const pid_t *tids, int count, int timeout_ms);

/* The input ledger: two counters in a page shared by the hub and one plugin host (a memfd,
 * fd 4 in the host). The host counts inputs it took off the socket and inputs whose receive
 * returned; when the host dies, the hub reads them to tell the inputs the plugin never saw
 * (given to the next process) from the one it died handling (not retried: it may be the
 * cause). The page lives in the plugin's address space: the hub treats it as untrusted. */
typedef struct pc_input_ledger {
  uint64_t taken;
  uint64_t finished;
} pc_input_ledger;

/* A new shared ledger: returns its memfd (close-on-exec) and maps it at *out; -1 on failure. */
int pc_input_ledger_create(pc_input_ledger **out);
/* Maps the ledger passed as `fd` (in the host); NULL when there is none. */
pc_input_ledger *pc_input_ledger_attach(int fd);
void pc_input_ledger_release(pc_input_ledger *ledger);
static inline void pc_input_ledger_store_taken(pc_input_ledger *ledger, uint64_t value) {
  __atomic_store_n(&ledger->taken, value, __ATOMIC_RELEASE);
}
static inline void pc_input_ledger_store_finished(pc_input_ledger *ledger, uint64_t value) {
  __atomic_store_n(&ledger->finished, value, __ATOMIC_RELEASE);
}
static inline uint64_t pc_input_ledger_taken(const pc_input_ledger *ledger) {
  return __atomic_load_n(&ledger->taken, __ATOMIC_ACQUIRE);
}
static inline uint64_t pc_input_ledger_finished(const pc_input_ledger *ledger) {
  return __atomic_load_n(&ledger->finished, __ATOMIC_ACQUIRE);
}

/* A child spawned with `attributes` starts with a clean signal state: nothing blocked, and
 * SIGTERM, SIGINT, SIGHUP, SIGPIPE and SIGCHLD at their defaults (a child inherits the spawning
 * thread's mask and the ignored signals; the hub's threads block nearly everything). Adds
 * POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF to the flags already set. 0 or an errno. */
int pc_spawnattr_clean_signals(posix_spawnattr_t *attributes);

/* Several frames per system call (the hub's and the hosts' readers). Included here as well so
 * that a build folder made before frame_batch.h existed rebuilds this module. */
#include "frame_batch.h"

#endif
