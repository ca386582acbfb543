/// A C plugin that drives the hub's control socket as any member of group `patchbay` could:
/// from its own process, and from a grandchild in a session of its own, each sends a
/// `restart` of the instance `target`, and logs what the hub answered. Every process on the way
/// has a name that is not UTF-8 (`/proc/self/comm` of the host, `PR_SET_NAME` of the child), so
/// the hub's reading of /proc/PID/stat cannot follow the chain as text (issue 41).
enum ControlSocketIntruder {
  static let source = #"""
    #define _GNU_SOURCE
    #include <patchbay/plugin.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <stdio.h>
    #include <sys/prctl.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/socket.h>
    #include <sys/un.h>
    #include <sys/wait.h>
    #include <unistd.h>

    typedef struct intruder {
      const pb_host_api *api;
      pb_host *host;
      char socket_path[108];
      char target[64];
    } intruder;

    /* One restart request; what came back ("" when the hub closed without a word). */
    static void attempt(const intruder *self, char *answer, size_t capacity) {
      answer[0] = 0;
      int fd = socket(AF_UNIX, SOCK_STREAM, 0);
      if (fd < 0) {
        snprintf(answer, capacity, "socket refused: %s", strerror(errno));
        return;
      }
      struct sockaddr_un address = {0};
      address.sun_family = AF_UNIX;
      snprintf(address.sun_path, sizeof address.sun_path, "%s", self->socket_path);
      if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        snprintf(answer, capacity, "connect failed");
        close(fd);
        return;
      }
      char request[160];
      int length = snprintf(request, sizeof request, "{\"command\":\"restart\",\"instance\":\"%s\"}\n", self->target);
      if (write(fd, request, (size_t)length) != length) snprintf(answer, capacity, "write failed");
      ssize_t got = read(fd, answer, capacity - 1);
      answer[got > 0 ? got : 0] = 0;
      close(fd);
    }

    static pb_status intruder_create(const pb_create_args *args, void **out, pb_error *error) {
      (void)error;
      intruder *self = calloc(1, sizeof(intruder));
      self->api = args->api;
      self->host = args->host;
      const char *text = NULL;
      if (self->api->config_string(self->host, "socket", &text) == PB_OK)
        snprintf(self->socket_path, sizeof self->socket_path, "%s", text);
      if (self->api->config_string(self->host, "target", &text) == PB_OK)
        snprintf(self->target, sizeof self->target, "%s", text);
      *out = self;
      return PB_OK;
    }

    static pb_status intruder_start(void *instance, pb_error *error) {
      (void)error;
      intruder *self = instance;
      char answer[512], line[600];
      int comm = open("/proc/self/comm", O_WRONLY);
      if (comm >= 0) {
        if (write(comm, "\xff\xfe\xfd", 3) != 3) self->api->log(self->host, PB_LOG_WARNING, "comm not written");
        close(comm);
      }
      attempt(self, answer, sizeof answer);
      snprintf(line, sizeof line, "intruder (host process): '%s'", answer);
      self->api->log(self->host, PB_LOG_WARNING, line);
      /* A grandchild that left the host's session and cleared its environment. */
      pid_t child = fork();
      if (child == 0) {
        setsid();
        prctl(PR_SET_NAME, "\xff\xfe\xfd", 0, 0, 0);
        pid_t grandchild = fork();
        /* The child waits for the grandchild's attempt: the chain stays as it was. */
        if (grandchild != 0) {
          int status = 0;
          waitpid(grandchild, &status, 0);
          _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 2);
        }
        /* Its own name is plain again: only the link above it cannot be read as text. */
        prctl(PR_SET_NAME, "grandchild", 0, 0, 0);
        clearenv();
        attempt(self, answer, sizeof answer);
        _exit(strstr(answer, "restarting") ? 1 : 0);
      }
      int status = 0;
      waitpid(child, &status, 0);
      snprintf(line, sizeof line, "intruder (grandchild): %s",
               WIFEXITED(status) && WEXITSTATUS(status) == 1 ? "the hub obeyed" : "not obeyed");
      self->api->log(self->host, PB_LOG_WARNING, line);
      return PB_OK;
    }

    static pb_status intruder_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)instance; (void)port; (void)value; (void)error;
      return PB_OK;
    }
    static pb_status intruder_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static void intruder_destroy(void *instance) { free(instance); }

    static const pb_plugin_descriptor descriptor = {
        .size = sizeof(pb_plugin_descriptor),
        .abi_major = PB_ABI_MAJOR,
        .abi_minor = PB_ABI_MINOR,
        .name = "intruder",
        .version = "0.0.1",
        .description = "drives the control socket",
        .create = intruder_create,
        .start = intruder_start,
        .receive = intruder_receive,
        .stop = intruder_stop,
        .destroy = intruder_destroy,
    };

    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#
}
