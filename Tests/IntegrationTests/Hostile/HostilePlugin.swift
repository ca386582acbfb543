/// A deliberately misbehaving C plugin, built by the tests against the header alone. Its
/// `mode` config key picks the misbehaviour; every mode declares the same ports.
enum HostilePlugin {
  static let source = #"""
    #define _GNU_SOURCE
    #include <patchbay/plugin.h>
    #include <errno.h>
    #include <pthread.h>
    #include <signal.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/types.h>
    #include <unistd.h>

    typedef struct hostile {
      const pb_host_api *api;
      pb_host *host;
      char mode[64];
      char marker[128];
      uint32_t in_poke, out_text;
    } hostile;

    static void publish_text(hostile *self, const char *bytes, size_t length) {
      pb_value value = {0};
      value.size = sizeof(pb_value);
      value.type = PB_VALUE_TEXT;
      value.u.text.data = bytes;
      value.u.text.length = (uint32_t)length;
      self->api->publish(self->host, self->out_text, &value);
    }

    /* A grandchild in a session of its own, with an environment of its own (no trace of the
     * hub's marker): it can only be found by the marker the test gave. */
    static void escape(hostile *self) {
      pid_t child = fork();
      if (child != 0) return;
      setsid();
      if (fork() != 0) _exit(0);
      char variable[160];
      snprintf(variable, sizeof variable, "HOSTILE_MARKER=%s", self->marker);
      char *envp[] = {variable, NULL};
      for (int fd = 3; fd < 1024; fd++) close(fd);
      execle("/bin/sleep", "sleep", "100000", (char *)NULL, envp);
      _exit(127);
    }

    static void *flood(void *argument) {
      hostile *self = argument;
      static char big[5000];
      memset(big, 'x', sizeof big);
      const char invalid[] = {(char)0xff, (char)0xfe, 'a'};
      for (int round = 0; round < 1000; round++) {
        publish_text(self, invalid, sizeof invalid);
        publish_text(self, big, sizeof big);
        usleep(1000);
      }
      return NULL;
    }

    /* A fork storm: 10,000 children that stay (pause), from a thread so that the host still
     * answers heartbeats; says "swarm N" (or "swarm N, then ERRNO") on its text output. */
    static void *swarm(void *argument) {
      hostile *self = argument;
      int made = 0, error = 0;
      for (; made < 10000; made++) {
        pid_t child = fork();
        if (child == 0) for (;;) pause();
        if (child < 0) { error = errno; break; }
      }
      char line[96];
      int length = error ? snprintf(line, sizeof line, "swarm %d, then %s", made, strerrorname_np(error))
                         : snprintf(line, sizeof line, "swarm %d", made);
      publish_text(self, line, (size_t)length);
      return NULL;
    }

    static void *after_stop(void *argument) {
      hostile *self = argument;
      for (;;) {
        publish_text(self, "still here", 10);
        usleep(1000);
      }
      return NULL;
    }

    /* Well-formed wire frames (version 2) whose counters are UINT64_MAX, written straight to the
     * host's socket to the hub (fd 3): refusals (kind 10), publish pressure (11), refused system
     * calls (13). Then the process ends, and its restarted successor does the same. */
    static void overflow_counters(void) {
      unsigned char refusals[12] = {2, 10, 0, 0};
      unsigned char pressure[20] = {2, 11, 0, 0};
      unsigned char calls[12] = {2, 13, 0, 0};
      memset(refusals + 4, 0xff, 8);
      memset(pressure + 4, 0xff, 16);
      memset(calls + 4, 0xff, 8);
      if (write(3, refusals, sizeof refusals) < 0 || write(3, pressure, sizeof pressure) < 0 ||
          write(3, calls, sizeof calls) < 0) _exit(4);
      _exit(3);
    }

    /* Lines that look like the hub's own, and raw terminal escapes, on stdout and stderr. */
    static void forge_log(void) {
      printf("2026-12-06T00:00:00Z critical [hub] FORGED by a plugin\n");
      fflush(stdout);
      fprintf(stderr, "\x1b[2J\x1b[31mred\x1b[0m FORGED on stderr\n2026-12-06T00:00:01Z info [good] FORGED too\n");
      for (int line = 0; line < 1000; line++) fprintf(stderr, "flood %d\n", line);
    }

    /* 1,000 children that exit at once and are never waited for; SIGTERM ignored; then start()
     * never returns, so the hub kills the host (SIGKILL) and inherits the zombies. */
    static void zombies(void) {
      signal(SIGTERM, SIG_IGN);
      for (int made = 0; made < 1000; made++) {
        pid_t child = fork();
        if (child == 0) _exit(0);
        if (child < 0) break;
      }
      for (;;) pause();
    }

    static pb_status hostile_create(const pb_create_args *args, void **out, pb_error *error) {
      hostile *self = calloc(1, sizeof(hostile));
      self->api = args->api;
      self->host = args->host;
      const char *text = NULL;
      if (self->api->config_string(self->host, "mode", &text) == PB_OK) snprintf(self->mode, sizeof self->mode, "%s", text);
      if (self->api->config_string(self->host, "marker", &text) == PB_OK)
        snprintf(self->marker, sizeof self->marker, "%s", text);
      pb_port poke = {sizeof(pb_port), PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, "poke", "do the thing"};
      pb_port text_port = {sizeof(pb_port), PB_PORT_OUTPUT, PB_PORT_EVENT, PB_VALUE_TEXT, "text", "what it says"};
      if (self->api->add_port(self->host, &poke, &self->in_poke) != PB_OK ||
          self->api->add_port(self->host, &text_port, &self->out_text) != PB_OK) {
        snprintf(error->message, PB_ERROR_CAPACITY, "ports refused");
        return PB_ERR_INTERNAL;
      }
      if (strcmp(self->mode, "hang_create") == 0) for (;;) pause();
      *out = self;
      return PB_OK;
    }

    static pb_status hostile_start(void *instance, pb_error *error) {
      (void)error;
      hostile *self = instance;
      pthread_t thread;
      if (strcmp(self->mode, "close_fds") == 0) for (int fd = 0; fd < 1024; fd++) close(fd);
      if (strcmp(self->mode, "fork") == 0) escape(self);
      if (strcmp(self->mode, "flood") == 0) pthread_create(&thread, NULL, flood, self);
      if (strcmp(self->mode, "publish_after_stop") == 0) pthread_create(&thread, NULL, after_stop, self);
      if (strcmp(self->mode, "overflow_counters") == 0) overflow_counters();
      if (strcmp(self->mode, "forge_log") == 0) forge_log();
      if (strcmp(self->mode, "zombies") == 0) zombies();
      return PB_OK;
    }

    static pb_status hostile_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)port; (void)value; (void)error;
      hostile *self = instance;
      if (strcmp(self->mode, "exit_in_receive") == 0) exit(0);
      pthread_t thread;
      if (strcmp(self->mode, "swarm") == 0) pthread_create(&thread, NULL, swarm, self);
      return PB_OK;
    }

    static pb_status hostile_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static void hostile_destroy(void *instance) { (void)instance; /* leaked on purpose: a thread may still use it */ }

    static const pb_plugin_descriptor descriptor = {
      #ifdef SIZE_ZERO
        .size = 0,
      #else
        .size = sizeof(pb_plugin_descriptor),
      #endif
        .abi_major = PB_ABI_MAJOR,
        .abi_minor = PB_ABI_MINOR,
        .name = "hostile",
        .version = "0.0.1",
        .description = "misbehaves on purpose",
      #ifndef NULL_CREATE
        .create = hostile_create,
      #endif
        .start = hostile_start,
        .receive = hostile_receive,
        .stop = hostile_stop,
        .destroy = hostile_destroy,
    };

    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#
}
