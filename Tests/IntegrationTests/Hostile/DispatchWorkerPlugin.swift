/// A C plugin that keeps libdispatch's global queue busy, as Swift plugins do (NIO's shutdown,
/// Foundation): libdispatch's worker-pool monitor then reads `/proc/TID/stat` of each worker
/// once a second and traps (SIGILL) when that open fails. On `poke` it writes to `report` in
/// its state directory: `thread-stat ok` (or `refused ERRNO`) for its own thread's
/// `/proc/TID/stat` opened from a new thread (through open, open64, openat and fopen), then `done N` once N queued jobs of 0.1 s ran.
/// libdispatch is the one the host already loaded (found with dlsym, no link flags).
enum DispatchWorkerPlugin {
  static let jobs = 40

  static let source = #"""
    #define _GNU_SOURCE
    #include <patchbay/plugin.h>
    #include <dlfcn.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <pthread.h>
    #include <stdatomic.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <time.h>
    #include <unistd.h>

    #define JOBS \#(jobs)

    typedef struct busy {
      const pb_host_api *api;
      pb_host *host;
      char report[600];
      uint32_t in_poke;
      atomic_int finished;
    } busy;

    typedef void *(*global_queue_fn)(long, unsigned long);
    typedef void (*async_fn)(void *, void *, void (*)(void *));

    static void append(const busy *self, const char *line) {
      FILE *file = fopen(self->report, "a");
      if (!file) return;
      fprintf(file, "%s\n", line);
      fclose(file);
    }

    /* The thread's own /proc/TID/stat through each way a library opens a file: libdispatch
     * calls open; Rust's std and large-file C call open64 and openat; stdio calls fopen. */
    static void *open_own_stat(void *context) {
      busy *self = context;
      char path[64], line[128] = "thread-stat ok";
      snprintf(path, sizeof path, "/proc/%d/stat", (int)gettid());
      const char *names[] = {"open", "open64", "openat", "fopen"};
      for (int way = 0; way < 4; way++) {
        int fd = -1;
        FILE *file = NULL;
        switch (way) {
          case 0: fd = open(path, O_RDONLY | O_CLOEXEC); break;
          case 1: fd = open64(path, O_RDONLY | O_CLOEXEC); break;
          case 2: fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC); break;
          case 3: file = fopen(path, "re"); break;
        }
        if (fd >= 0) close(fd);
        if (file) fclose(file);
        if (fd < 0 && !file) {
          snprintf(line, sizeof line, "thread-stat refused %s through %s", strerrorname_np(errno), names[way]);
          break;
        }
      }
      append(self, line);
      return NULL;
    }

    static void job(void *context) {
      busy *self = context;
      struct timespec pause = {0, 100 * 1000 * 1000};
      nanosleep(&pause, NULL);
      if (atomic_fetch_add(&self->finished, 1) + 1 == JOBS) {
        char line[32];
        snprintf(line, sizeof line, "done %d", JOBS);
        append(self, line);
      }
    }

    static void poke(busy *self) {
      pthread_t thread;
      if (pthread_create(&thread, NULL, open_own_stat, self) == 0) pthread_join(thread, NULL);
      global_queue_fn global_queue = (global_queue_fn)dlsym(RTLD_DEFAULT, "dispatch_get_global_queue");
      async_fn async = (async_fn)dlsym(RTLD_DEFAULT, "dispatch_async_f");
      if (!global_queue || !async) { append(self, "no libdispatch in this process"); return; }
      void *queue = global_queue(0, 0);
      for (int i = 0; i < JOBS; i++) async(queue, self, job);
    }

    static pb_status busy_create(const pb_create_args *args, void **out, pb_error *error) {
      busy *self = calloc(1, sizeof(busy));
      self->api = args->api;
      self->host = args->host;
      snprintf(self->report, sizeof self->report, "%s/report", args->state_directory);
      pb_port poke = {sizeof(pb_port), PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, "poke", "queue the jobs"};
      if (self->api->add_port(self->host, &poke, &self->in_poke) != PB_OK) {
        snprintf(error->message, PB_ERROR_CAPACITY, "ports refused");
        return PB_ERR_INTERNAL;
      }
      *out = self;
      return PB_OK;
    }

    static pb_status busy_start(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static pb_status busy_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)port; (void)value; (void)error;
      poke(instance);
      return PB_OK;
    }
    static pb_status busy_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    /* The jobs hold the instance: it stays (a test plugin, destroyed once). */
    static void busy_destroy(void *instance) { (void)instance; }

    static const pb_plugin_descriptor descriptor = {
        .size = sizeof(pb_plugin_descriptor),
        .abi_major = PB_ABI_MAJOR,
        .abi_minor = PB_ABI_MINOR,
        .name = "dispatch-worker",
        .version = "0.0.1",
        .description = "keeps libdispatch's global queue busy",
        .create = busy_create,
        .start = busy_start,
        .receive = busy_receive,
        .stop = busy_stop,
        .destroy = busy_destroy,
    };

    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#
}
