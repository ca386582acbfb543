#ifndef PATCHBAY_SANDBOX_H
#define PATCHBAY_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* The plugin host's confinement: Landlock (files, TCP ports, signal scoping) and a seccomp
 * filter, applied by the host to itself before the plugin library is loaded, while it has
 * only one thread (Landlock restricts the calling thread and what it starts later). */

/* What a path may be used for. */
enum { SB_READ = 0, SB_READ_EXECUTE = 1, SB_READ_WRITE = 2 };

/* The kernel's Landlock ABI version, or 0 where it has no Landlock (or it is disabled). */
int sb_landlock_abi(void);

/* Starts a ruleset. restrict_network: also handle TCP connect and bind (ABI >= 4).
 * Returns the ABI in use (> 0), or -errno. */
int sb_begin(int restrict_network);
/* Adds a path; a missing path is skipped (returns -ENOENT, the caller may ignore it). */
int sb_allow_path(const char *path, int access);
/* Allows connecting to (bind == 0) or listening on (bind != 0) a TCP port. */
int sb_allow_port(uint16_t port, int bind);
/* no_new_privs, then enforces the ruleset with signal and abstract-socket scoping where the
 * kernel has it (ABI >= 6). Returns 0 or -errno. */
int sb_enforce(void);
/* From sb_enforce on, open(2) of "/proc/TID/..." refused by Landlock retries as
 * "/proc/self/task/TID/..." (a thread's own entry; see thread_proc_alias.c). */
void sb_thread_proc_alias_enable(void);
/* Whether the enforced domain scopes signals (ABI >= 6). */
int sb_scopes_signals(void);

/* Installs the seccomp filter (all threads): the refused system calls trap into a SIGSYS
 * handler that makes them fail with EPERM and counts them. Unless allow_unix_sockets,
 * socket(AF_UNIX, ...) fails with EACCES: Landlock does not cover connect(2) to a named
 * socket, so without this a plugin could reach any socket its user can open (the hub's
 * control socket, the system bus). The host's own socket to the hub is inherited, and
 * socketpair(2) (which reaches nothing outside the process) stays allowed. Not trapped nor
 * counted: the C library tries nscd's socket on every name lookup and copes with a refusal.
 * Returns 0 or -errno. */
int sb_seccomp_install(int allow_unix_sockets);
/* System calls refused so far (async-signal-safe counter). */
uint64_t sb_refused_calls(void);
/* The most recently refused system call's number (for the log), or -1. */
long sb_last_refused_call(void);

/* The file a symbol was loaded from (dladdr), e.g. the Swift runtime's, or NULL. */
const char *sb_library_of_symbol(const char *symbol);

#endif
