/// A C plugin that tries to leave its sandbox, built by the tests against the header alone.
/// On each `poke` it reads its targets (paths, ports, pids) from `targets` in its state
/// directory, tries each escape and writes one line per try to `report` there (the only place
/// it may write): `NAME ok` or `NAME refused ERRNO`.
enum EscapingPlugin {
  static let source = #"""
    #define _GNU_SOURCE
    #include <patchbay/plugin.h>
    #include <arpa/inet.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <netinet/in.h>
    #include <sched.h>
    #include <signal.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/ptrace.h>
    #include <sys/socket.h>
    #include <sys/syscall.h>
    #include <sys/uio.h>
    #include <unistd.h>

    typedef struct escaping {
      const pb_host_api *api;
      pb_host *host;
      char state[512];
      uint32_t in_poke;
    } escaping;

    static FILE *report;

    static void note(const char *name, int result) {
      if (result >= 0) fprintf(report, "%s ok\n", name);
      else fprintf(report, "%s refused %s\n", name, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
      fflush(report);
    }

    static int try_read(const char *path) {
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) return -1;
      char byte;
      int n = (int)read(fd, &byte, 1);
      close(fd);
      return n < 0 ? -1 : 0;
    }

    static int try_write(const char *path) {
      int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (fd < 0) return -1;
      int n = (int)write(fd, "x", 1);
      close(fd);
      return n < 0 ? -1 : 0;
    }

    static int try_connect(int port) {
      int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) return -1;
      struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      int result = connect(fd, (struct sockaddr *)&address, sizeof address);
      int error = errno;
      close(fd);
      errno = error;
      return result;
    }

    static void escape(escaping *self) {
      char path[600];
      snprintf(path, sizeof path, "%s/report", self->state);
      report = fopen(path, "w");
      if (!report) return;
      snprintf(path, sizeof path, "%s/targets", self->state);
      FILE *targets = fopen(path, "r");
      if (!targets) { fprintf(report, "targets missing\n"); fclose(report); return; }
      char key[64], value[512];
      long hub = getppid(), sibling = 0;
      int allowed = 0, forbidden = 0;
      while (fscanf(targets, "%63s %511s", key, value) == 2) {
        if (strcmp(key, "read") == 0) { char name[600]; snprintf(name, sizeof name, "read:%s", value); note(name, try_read(value)); }
        if (strcmp(key, "write") == 0) { char name[600]; snprintf(name, sizeof name, "write:%s", value); note(name, try_write(value)); }
        if (strcmp(key, "sibling") == 0) sibling = atol(value);
        if (strcmp(key, "allowed") == 0) allowed = atoi(value);
        if (strcmp(key, "forbidden") == 0) forbidden = atoi(value);
      }
      fclose(targets);
      char own[600];
      snprintf(own, sizeof own, "%s/mine", self->state);
      note("write:own", try_write(own));
      note("read:/etc/shadow", try_read("/etc/shadow"));
      snprintf(path, sizeof path, "/proc/%ld/mem", hub);
      note("read:hub-mem", try_read(path));
      snprintf(path, sizeof path, "/proc/%ld/environ", hub);
      note("read:hub-environ", try_read(path));
      if (allowed) note("connect:allowed", try_connect(allowed));
      if (forbidden) note("connect:forbidden", try_connect(forbidden));
      note("ptrace:hub", (int)ptrace(PTRACE_ATTACH, (pid_t)hub, NULL, NULL));
      if (sibling) note("ptrace:sibling", (int)ptrace(PTRACE_ATTACH, (pid_t)sibling, NULL, NULL));
      char buffer[8];
      struct iovec local = {buffer, sizeof buffer}, remote = {(void *)0x400000, sizeof buffer};
      note("process_vm_readv:hub", (int)process_vm_readv((pid_t)hub, &local, 1, &remote, 1, 0));
      note("unshare:user", unshare(CLONE_NEWUSER));
      /* Signals last; a probe with signal 0 first: where the kernel lets it through, the
       * sandbox is not scoping signals and nothing is killed (not even on a test machine). */
      int probe = kill((pid_t)hub, 0);
      note("kill0:hub", probe);
      if (probe != 0) {
        note("kill:hub", kill((pid_t)hub, SIGKILL));
        if (sibling) note("kill:sibling", kill((pid_t)sibling, SIGKILL));
        note("kill:-1", kill(-1, SIGKILL));
      }
      fprintf(report, "done\n");
      fclose(report);
    }

    static pb_status escaping_create(const pb_create_args *args, void **out, pb_error *error) {
      escaping *self = calloc(1, sizeof(escaping));
      self->api = args->api;
      self->host = args->host;
      snprintf(self->state, sizeof self->state, "%s", args->state_directory);
      pb_port poke = {sizeof(pb_port), PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, "poke", "try to escape"};
      if (self->api->add_port(self->host, &poke, &self->in_poke) != PB_OK) {
        snprintf(error->message, PB_ERROR_CAPACITY, "ports refused");
        return PB_ERR_INTERNAL;
      }
      *out = self;
      return PB_OK;
    }

    static pb_status escaping_start(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static pb_status escaping_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)port; (void)value; (void)error;
      escape(instance);
      return PB_OK;
    }
    static pb_status escaping_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static void escaping_destroy(void *instance) { free(instance); }

    static const pb_plugin_descriptor descriptor = {
        .size = sizeof(pb_plugin_descriptor),
        .abi_major = PB_ABI_MAJOR,
        .abi_minor = PB_ABI_MINOR,
        .name = "escaping",
        .version = "0.0.1",
        .description = "tries to leave its sandbox",
        .create = escaping_create,
        .start = escaping_start,
        .receive = escaping_receive,
        .stop = escaping_stop,
        .destroy = escaping_destroy,
    };

    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#
}
