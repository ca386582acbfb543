// patchbay's processes never run a thread above normal priority.
//
// libdispatch's worker pool on Linux asks for nice -4 for the threads of its higher QoS root
// queues (it starts one at the first job of any global queue or Swift task, whatever QoS the
// job asked for). Without CAP_SYS_NICE or RLIMIT_NICE that fails with EACCES, and libdispatch
// logs "Failed to set thread priority for worker thread ... errno=13" to syslog/the journal,
// from the hub, every plugin host, patchbay-web and every CLI run. Nothing in patchbay needs a
// raised priority, so this definition (it takes the place of the C library's for every library
// in the process) stops the asking: a request for a negative nice value becomes a request for
// the normal one (or the thread's own, when it was started lower, under `nice`), which needs no
// privilege. Lowering a priority passes through unchanged.
#define _GNU_SOURCE
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int setpriority(__priority_which_t which, id_t who, int prio) {
  if (prio < 0) {
    errno = 0;
    long current = syscall(SYS_getpriority, which, who);  // the kernel's 40 - nice, or -1
    prio = (current > 0 && 20 - current > 0) ? (int)(20 - current) : 0;
  }
  return (int)syscall(SYS_setpriority, which, who, prio);
}
