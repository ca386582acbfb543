/* Small Linux process controls Swift's Glibc module does not expose. */
#ifndef PATCHBAY_PROCESS_CONTROL_H
#define PATCHBAY_PROCESS_CONTROL_H

#include <signal.h>
#include <sys/prctl.h>

/* Deliver `signal` to this process when its parent dies (PR_SET_PDEATHSIG). */
static inline int pc_set_parent_death_signal(int signal) { return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0); }

#endif
