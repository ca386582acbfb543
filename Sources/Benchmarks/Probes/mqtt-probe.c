/*
 * The MQTT comparison of `patchbay-bench`: the same ping-pong as the hub's hop benchmark, with
 * a mosquitto broker on loopback in the middle (publisher -> broker -> subscriber, QoS 0), in
 * two processes, measured with libmosquitto.
 *
 *   mqtt-probe PORT COUNT FILE
 * The child subscribes to bench/ping, writes each one-way latency (receive time minus the
 * CLOCK_MONOTONIC stamp in the payload, u64 ns) to FILE after COUNT messages, echoes each
 * on bench/pong and prints "rss_kb N" (its own resident memory) before it exits.
 * Built by patchbay-bench with `gcc ... -lmosquitto`; it is no SwiftPM target on purpose.
 */
#include <mosquitto.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, int code) {
  fprintf(stderr, "mqtt-probe: %s failed (%d: %s)\n", what, code, mosquitto_strerror(code));
  exit(1);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long count, received, echoes;
static int subscribed, peer_ready;
static uint64_t *latencies;

static void on_subscribe(struct mosquitto *m, void *data, int mid, int qos_count, const int *granted) {
  (void)m, (void)data, (void)mid, (void)qos_count, (void)granted;
  pthread_mutex_lock(&lock);
  subscribed++;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

/* Subscriber: record and echo. */
static void on_ping(struct mosquitto *m, void *data, const struct mosquitto_message *message) {
  (void)data;
  uint64_t now = now_ns(), sent;
  if (message->payloadlen < (int)sizeof sent) return;
  memcpy(&sent, message->payload, sizeof sent);
  pthread_mutex_lock(&lock);
  if (received < count) latencies[received++] = now - sent;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  mosquitto_publish(m, NULL, "bench/pong", message->payloadlen, message->payload, 0, false);
}

/* Publisher: count echoes; "ready" from the subscriber opens the run. */
static void on_pong(struct mosquitto *m, void *data, const struct mosquitto_message *message) {
  (void)m, (void)data;
  pthread_mutex_lock(&lock);
  if (strcmp(message->topic, "bench/ready") == 0) peer_ready = 1;
  else if (peer_ready) echoes++;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

static struct mosquitto *client(int port, const char *topic, const char *topic2, void (*on_message)(struct mosquitto *, void *,
                                                                                   const struct mosquitto_message *)) {
  struct mosquitto *m = mosquitto_new(NULL, true, NULL);
  if (!m) die("mosquitto_new", 0);
  mosquitto_subscribe_callback_set(m, on_subscribe);
  mosquitto_message_callback_set(m, on_message);
  int rc = mosquitto_connect(m, "127.0.0.1", port, 60);
  if (rc != MOSQ_ERR_SUCCESS) die("connect", rc);
  if ((rc = mosquitto_loop_start(m)) != MOSQ_ERR_SUCCESS) die("loop_start", rc);
  if ((rc = mosquitto_subscribe(m, NULL, topic, 0)) != MOSQ_ERR_SUCCESS) die("subscribe", rc);
  if (topic2 && (rc = mosquitto_subscribe(m, NULL, topic2, 0)) != MOSQ_ERR_SUCCESS) die("subscribe", rc);
  pthread_mutex_lock(&lock);
  while (subscribed < (topic2 ? 2 : 1)) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  return m;
}

static long own_rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %ld", &kb) == 1) break;
  if (f) fclose(f);
  return kb;
}

static int subscriber(int port, const char *path) {
  latencies = calloc((size_t)count, sizeof(uint64_t));
  struct mosquitto *m = client(port, "bench/ping", NULL, on_ping);
  pthread_mutex_lock(&lock);
  /* Say "ready" until the first ping: the publisher may subscribe after us. */
  while (received == 0) {
    pthread_mutex_unlock(&lock);
    mosquitto_publish(m, NULL, "bench/ready", 1, "r", 0, false);
    usleep(10000);
    pthread_mutex_lock(&lock);
  }
  while (received < count) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  fwrite(latencies, sizeof(uint64_t), (size_t)count, f);
  fclose(f);
  printf("rss_kb %ld\n", own_rss_kb());
  fflush(stdout);
  mosquitto_disconnect(m);
  mosquitto_loop_stop(m, false);
  return 0;
}

static int publisher(int port, pid_t child) {
  struct mosquitto *m = client(port, "bench/pong", "bench/ready", on_pong);
  pthread_mutex_lock(&lock);
  while (!peer_ready) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  for (long i = 0; i < count; i++) {
    uint64_t stamp = now_ns();
    if (mosquitto_publish(m, NULL, "bench/ping", sizeof stamp, &stamp, 0, false) != MOSQ_ERR_SUCCESS) return 1;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 5;
    pthread_mutex_lock(&lock);
    while (echoes <= i && pthread_cond_timedwait(&changed, &lock, &deadline) == 0) {}
    pthread_mutex_unlock(&lock);
  }
  int status = 0;
  waitpid(child, &status, 0);
  mosquitto_disconnect(m);
  mosquitto_loop_stop(m, false);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s PORT COUNT FILE\n", argv[0]);
    return 64;
  }
  int port = atoi(argv[1]);
  count = atol(argv[2]);
  mosquitto_lib_init();
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) _exit(subscriber(port, argv[3]));
  return publisher(port, child);
}
