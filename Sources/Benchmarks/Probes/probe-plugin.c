/*
 * bench-probe: the benchmark's timestamping plugin (never packaged; `patchbay-bench` compiles
 * it with gcc into its work directory). Values are CLOCK_MONOTONIC nanoseconds, a clock every
 * process on the machine shares, so a receiver in another process can compute one-way latency.
 *
 * role = "source": output `value` (integer, `kind` event or state), inputs `echo` (integer
 *   event) and `go` (trigger). On `go` a thread sends `count` values:
 *   mode = "pingpong": one at a time, each sent when the previous one's echo is back;
 *   mode = "flood": 1, 2, ... count as fast as publish() takes them.
 *   It writes "sent N begin_ns B end_ns E" to `results` when done.
 * role = "sink": input `value`, output `echo`. Pingpong: records receive time minus the value
 *   and echoes it; after `count` values writes them (u64 little-endian ns) to `results`.
 *   Flood: counts what arrives and writes "received N first_ns F last_ns L last_value V" to
 *   `results` when value `count` arrives, every 100 ms while the count changes, and on stop.
 * mode = "stamp" (the HomeKit benchmark): the source publishes one value per `go` and the sink
 *   takes each value it receives; both keep the CLOCK_MONOTONIC time of each (not a difference:
 *   the other end of the measurement is outside the hub) and write the `count` times (u64
 *   little-endian ns) to `results` once they have them all. `value_type = "bool"` makes `value`
 *   a bool port (the source alternates true, false, ...), as a HomeKit switch's `on` is.
 * Either role appends "PID START_NS" to `start_file` (if set) in start(): the restart benchmark.
 */
#include <patchbay/plugin.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct probe {
  const pb_host_api *api;
  pb_host *host;
  int source, flood, stamp, boolean;
  int64_t count;
  char record[1024], start_file[1024];
  uint32_t value_port, echo_port, go_port;
  /* source */
  pthread_t thread;
  int thread_started;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int go, stopping;
  uint64_t echoes;
  /* sink */
  uint64_t *latencies;
  int64_t received;
  uint64_t first_ns, last_ns;
  int64_t last_value, written;
} probe;

static void copy_config(probe *p, const char *key, char *out, size_t capacity) {
  const char *text = NULL;
  out[0] = 0;
  if (p->api->config_string(p->host, key, &text) == PB_OK && text) snprintf(out, capacity, "%s", text);
}

static pb_status declare(probe *p, const char *name, pb_port_direction direction, pb_port_kind kind,
                         pb_value_type type, uint32_t *index) {
  pb_port port = {.size = sizeof(pb_port), .direction = direction, .kind = kind, .type = type, .name = name};
  return p->api->add_port(p->host, &port, index);
}

static pb_status probe_create(const pb_create_args *args, void **out, pb_error *error) {
  probe *p = calloc(1, sizeof(probe));
  if (!p) return PB_ERR_NO_MEMORY;
  p->api = args->api;
  p->host = args->host;
  char text[64];
  copy_config(p, "role", text, sizeof text);
  p->source = strcmp(text, "source") == 0;
  copy_config(p, "mode", text, sizeof text);
  p->flood = strcmp(text, "flood") == 0;
  p->stamp = strcmp(text, "stamp") == 0;
  copy_config(p, "value_type", text, sizeof text);
  p->boolean = strcmp(text, "bool") == 0;
  pb_value_type value_type = p->boolean ? PB_VALUE_BOOL : PB_VALUE_INTEGER;
  copy_config(p, "kind", text, sizeof text);
  pb_port_kind kind = strcmp(text, "state") == 0 ? PB_PORT_STATE : PB_PORT_EVENT;
  p->count = 0;
  p->api->config_integer(p->host, "count", &p->count);
  copy_config(p, "results", p->record, sizeof p->record);
  copy_config(p, "start_file", p->start_file, sizeof p->start_file);
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->changed, NULL);
  pb_status status;
  if (p->source) {
    status = declare(p, "value", PB_PORT_OUTPUT, kind, value_type, &p->value_port);
    if (status == PB_OK) status = declare(p, "echo", PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_INTEGER, &p->echo_port);
    if (status == PB_OK) status = declare(p, "go", PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, &p->go_port);
  } else {
    status = declare(p, "value", PB_PORT_INPUT, kind, value_type, &p->value_port);
    if (status == PB_OK) status = declare(p, "echo", PB_PORT_OUTPUT, PB_PORT_EVENT, PB_VALUE_INTEGER, &p->echo_port);
  }
  if (status == PB_OK && (p->stamp || (!p->source && !p->flood)) && p->count > 0) {
    p->latencies = calloc((size_t)p->count, sizeof(uint64_t));
    if (!p->latencies) status = PB_ERR_NO_MEMORY;
  }
  if (status != PB_OK) {
    snprintf(error->message, PB_ERROR_CAPACITY, "bench-probe: cannot declare its ports");
    free(p->latencies);
    free(p);
    return status;
  }
  *out = p;
  return PB_OK;
}

static void publish_integer(probe *p, uint32_t port, int64_t value) {
  pb_value v;
  memset(&v, 0, sizeof v);
  v.size = sizeof(pb_value);
  v.type = PB_VALUE_INTEGER;
  v.u.integer = value;
  p->api->publish(p->host, port, &v);
}

static void write_text(const char *path, const char *text) {
  char temporary[1100];
  snprintf(temporary, sizeof temporary, "%s.tmp", path);
  FILE *f = fopen(temporary, "w");
  if (!f) return;
  fputs(text, f);
  fclose(f);
  rename(temporary, path);
}

static void *source_run(void *context) {
  probe *p = context;
  pthread_mutex_lock(&p->lock);
  while (!p->go && !p->stopping) pthread_cond_wait(&p->changed, &p->lock);
  pthread_mutex_unlock(&p->lock);
  uint64_t begin = now_ns();
  int64_t sent = 0;
  for (int64_t i = 1; i <= p->count; i++) {
    if (p->flood) {
      publish_integer(p, p->value_port, i);
    } else {
      pthread_mutex_lock(&p->lock);
      uint64_t expected = p->echoes + 1;
      pthread_mutex_unlock(&p->lock);
      publish_integer(p, p->value_port, (int64_t)now_ns());
      struct timespec deadline;
      clock_gettime(CLOCK_REALTIME, &deadline);
      deadline.tv_sec += 5;
      pthread_mutex_lock(&p->lock);
      while (p->echoes < expected && !p->stopping) {
        if (pthread_cond_timedwait(&p->changed, &p->lock, &deadline) == ETIMEDOUT) break;
      }
      pthread_mutex_unlock(&p->lock);
    }
    sent++;
    if (p->stopping) break;
  }
  uint64_t end = now_ns();
  char line[256];
  snprintf(line, sizeof line, "sent %lld begin_ns %llu end_ns %llu\n", (long long)sent, (unsigned long long)begin,
           (unsigned long long)end);
  if (p->record[0]) write_text(p->record, line);
  return NULL;
}

static void write_sink_summary(probe *p);

/* An event route may drop the last value, so the count is also written while it changes. */
static void sink_tick(void *user_data, uint64_t timer_id) {
  (void)timer_id;
  probe *p = user_data;
  if (p->received != p->written) write_sink_summary(p);
  p->api->schedule(p->host, 100000000ull, sink_tick, p, NULL);
}

static pb_status probe_start(void *instance, pb_error *error) {
  probe *p = instance;
  if (p->start_file[0]) {
    char line[64];
    int length = snprintf(line, sizeof line, "%d %llu\n", (int)getpid(), (unsigned long long)now_ns());
    int fd = open(p->start_file, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
      if (write(fd, line, (size_t)length) < 0) { /* the benchmark notices the missing line */ }
      close(fd);
    }
  }
  if (!p->source && p->flood && p->record[0]) p->api->schedule(p->host, 100000000ull, sink_tick, p, NULL);
  if (p->source && !p->stamp && p->count > 0) {
    if (pthread_create(&p->thread, NULL, source_run, p) != 0) {
      snprintf(error->message, PB_ERROR_CAPACITY, "bench-probe: cannot start its thread");
      return PB_ERR_INTERNAL;
    }
    p->thread_started = 1;
  }
  return PB_OK;
}

static void write_sink_summary(probe *p) {
  char line[256];
  p->written = p->received;
  snprintf(line, sizeof line, "received %lld first_ns %llu last_ns %llu last_value %lld\n", (long long)p->received,
           (unsigned long long)p->first_ns, (unsigned long long)p->last_ns, (long long)p->last_value);
  write_text(p->record, line);
}

static void write_latencies(probe *p) {
  char temporary[1100];
  snprintf(temporary, sizeof temporary, "%s.tmp", p->record);
  FILE *f = fopen(temporary, "wb");
  if (!f) return;
  fwrite(p->latencies, sizeof(uint64_t), (size_t)p->received, f);
  fclose(f);
  rename(temporary, p->record);
}

/* Stamp mode: the time of each value published on `go` (source) or received (sink). */
static pb_status stamp_receive(probe *p, uint32_t port, uint64_t now) {
  if (port != (p->source ? p->go_port : p->value_port) || p->received >= p->count) return PB_OK;
  if (p->source) {
    pb_value v;
    memset(&v, 0, sizeof v);
    v.size = sizeof(pb_value);
    v.type = p->boolean ? PB_VALUE_BOOL : PB_VALUE_INTEGER;
    if (p->boolean) v.u.boolean = p->received % 2 == 0;
    else v.u.integer = (int64_t)now;
    now = now_ns();
    p->api->publish(p->host, p->value_port, &v);
  }
  p->latencies[p->received++] = now;
  if (p->received == p->count && p->record[0]) write_latencies(p);
  return PB_OK;
}

static pb_status probe_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
  (void)error;
  probe *p = instance;
  uint64_t now = now_ns();
  if (p->stamp) return stamp_receive(p, port, now);
  if (p->source) {
    pthread_mutex_lock(&p->lock);
    if (port == p->go_port) p->go = 1;
    if (port == p->echo_port) p->echoes++;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    return PB_OK;
  }
  if (port != p->value_port) return PB_OK;
  int64_t v = value->u.integer;
  if (p->flood) {
    if (p->received == 0) p->first_ns = now;
    p->received++;
    p->last_ns = now;
    p->last_value = v;
    if (v == p->count && p->record[0]) write_sink_summary(p);
    return PB_OK;
  }
  if (p->received < p->count) p->latencies[p->received++] = now - (uint64_t)v;
  publish_integer(p, p->echo_port, v);
  if (p->received == p->count && p->record[0]) write_latencies(p);
  return PB_OK;
}

static pb_status probe_stop(void *instance, pb_error *error) {
  (void)error;
  probe *p = instance;
  pthread_mutex_lock(&p->lock);
  p->stopping = 1;
  pthread_cond_broadcast(&p->changed);
  pthread_mutex_unlock(&p->lock);
  if (p->thread_started) pthread_join(p->thread, NULL);
  if (!p->source && p->flood && p->record[0]) write_sink_summary(p);
  return PB_OK;
}

static void probe_destroy(void *instance) {
  probe *p = instance;
  free(p->latencies);
  free(p);
}

static const pb_plugin_descriptor descriptor = {
    sizeof(pb_plugin_descriptor), PB_ABI_MAJOR, PB_ABI_MINOR, 0, "bench-probe", "1.0.0",
    "patchbay-bench's timestamping source and sink (not packaged)",
    probe_create, probe_start, probe_receive, probe_stop, probe_destroy,
};

__attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
  return &descriptor;
}
