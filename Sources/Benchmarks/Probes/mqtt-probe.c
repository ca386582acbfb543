/*
 * The MQTT comparison of `patchbay-bench`: the same ping-pong as the hub's hop benchmark, with
 * a mosquitto broker on loopback in the middle (publisher -> broker -> subscriber, QoS 0), in
 * two processes, measured with libmosquitto.
 *
 *   mqtt-probe PORT COUNT FILE [QOS]
 * The child subscribes to bench/ping, writes each one-way latency (receive time minus the
 * CLOCK_MONOTONIC stamp in the payload, u64 ns) to FILE after COUNT messages, echoes each
 * on bench/pong and prints "rss_kb N" and "pss_kb N" (its own memory) before it exits. Payloads are
 * decimal text (what the mqtt plugin publishes for an integer); QOS defaults to 0.
 *
 * The MQTT bridge section (the hub's mqtt plugin on one side) uses the halves on their own:
 *   mqtt-probe subscriber PORT COUNT FILE QOS   subscribes to bench/value, prints "subscribed",
 *                          records latencies as above, echoes each on bench/echo
 *   mqtt-probe flood-sub PORT COUNT QOS          subscribes to bench/value, prints "subscribed",
 *                          counts; prints "received N first_ns F last_ns L" after COUNT messages
 *                          or 3 s without one
 *   mqtt-probe flood PORT COUNT QOS              the raw baseline of both: a flood-sub child and a
 *                          publisher that sends 1..COUNT on bench/value as fast as libmosquitto
 *                          takes them; prints "begin_ns B end_ns E" and the child's line
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
static int qos;
static const char *ping_topic = "bench/ping", *pong_topic = "bench/pong";
static int counting; /* flood-sub: only count */
static uint64_t first_ns, last_ns;
static int subscribed, peer_ready;
static uint64_t *latencies;

static void on_subscribe(struct mosquitto *m, void *data, int mid, int qos_count, const int *granted) {
  (void)m, (void)data, (void)mid, (void)qos_count, (void)granted;
  pthread_mutex_lock(&lock);
  subscribed++;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
}

/* Subscriber: record and echo (or, flooded, count). */
static void on_ping(struct mosquitto *m, void *data, const struct mosquitto_message *message) {
  (void)data;
  uint64_t now = now_ns();
  char text[32];
  int length = message->payloadlen < (int)sizeof text - 1 ? message->payloadlen : (int)sizeof text - 1;
  memcpy(text, message->payload, (size_t)length);
  text[length] = 0;
  uint64_t sent = strtoull(text, NULL, 10);
  pthread_mutex_lock(&lock);
  if (counting) {
    if (received == 0) first_ns = now;
    last_ns = now;
    received++;
  } else if (received < count) {
    latencies[received++] = now - sent;
  }
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  if (!counting) mosquitto_publish(m, NULL, pong_topic, message->payloadlen, message->payload, qos, false);
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
  if ((rc = mosquitto_subscribe(m, NULL, topic, qos)) != MOSQ_ERR_SUCCESS) die("subscribe", rc);
  if (topic2 && (rc = mosquitto_subscribe(m, NULL, topic2, qos)) != MOSQ_ERR_SUCCESS) die("subscribe", rc);
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

static long own_pss_kb(void) {
  FILE *f = fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Pss: %ld", &kb) == 1) break;
  if (f) fclose(f);
  return kb;
}

static int subscriber(int port, const char *path) {
  latencies = calloc((size_t)count, sizeof(uint64_t));
  struct mosquitto *m = client(port, ping_topic, NULL, on_ping);
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
  printf("rss_kb %ld\npss_kb %ld\n", own_rss_kb(), own_pss_kb());
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
    char stamp[32];
    int length = snprintf(stamp, sizeof stamp, "%llu", (unsigned long long)now_ns());
    if (mosquitto_publish(m, NULL, "bench/ping", length, stamp, qos, false) != MOSQ_ERR_SUCCESS) return 1;
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

/* The hub's side publishes: say when the subscription stands, then record and echo. */
static int bridge_subscriber(int port, const char *path) {
  ping_topic = "bench/value";
  pong_topic = "bench/echo";
  latencies = calloc((size_t)count, sizeof(uint64_t));
  struct mosquitto *m = client(port, ping_topic, NULL, on_ping);
  printf("subscribed\n");
  fflush(stdout);
  pthread_mutex_lock(&lock);
  while (received < count) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  fwrite(latencies, sizeof(uint64_t), (size_t)count, f);
  fclose(f);
  printf("rss_kb %ld\npss_kb %ld\n", own_rss_kb(), own_pss_kb());
  fflush(stdout);
  mosquitto_disconnect(m);
  mosquitto_loop_stop(m, false);
  return 0;
}

/* Counts bench/value until COUNT arrived or 3 s passed without one (a lossy path). `ready`,
 * when >= 0, gets a byte once the subscription stands. */
static int flood_subscriber(int port, int ready) {
  ping_topic = "bench/value";
  counting = 1;
  struct mosquitto *m = client(port, ping_topic, NULL, on_ping);
  printf("subscribed\n");
  fflush(stdout);
  if (ready >= 0 && write(ready, "r", 1) != 1) return 1;
  pthread_mutex_lock(&lock);
  long seen = -1;
  while (received < count) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += received == 0 ? 120 : 3;
    if (pthread_cond_timedwait(&changed, &lock, &deadline) != 0) {
      if (received == seen) break;
    }
    seen = received;
  }
  printf("received %ld first_ns %llu last_ns %llu\n", received, (unsigned long long)first_ns,
         (unsigned long long)last_ns);
  fflush(stdout);
  pthread_mutex_unlock(&lock);
  mosquitto_disconnect(m);
  mosquitto_loop_stop(m, false);
  return 0;
}

/* The raw flood: publish 1..COUNT as fast as libmosquitto takes them. */
static int flood(int port) {
  int ready[2];
  if (pipe(ready) != 0) return 1;
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(ready[0]);
    _exit(flood_subscriber(port, ready[1]));
  }
  close(ready[1]);
  char byte;
  if (read(ready[0], &byte, 1) != 1) return 1;
  struct mosquitto *m = mosquitto_new(NULL, true, NULL);
  if (!m) die("mosquitto_new", 0);
  int rc = mosquitto_connect(m, "127.0.0.1", port, 60);
  if (rc != MOSQ_ERR_SUCCESS) die("connect", rc);
  if ((rc = mosquitto_loop_start(m)) != MOSQ_ERR_SUCCESS) die("loop_start", rc);
  uint64_t begin = now_ns();
  for (long i = 1; i <= count; i++) {
    char text[32];
    int length = snprintf(text, sizeof text, "%ld", i);
    if ((rc = mosquitto_publish(m, NULL, "bench/value", length, text, qos, false)) != MOSQ_ERR_SUCCESS) die("publish", rc);
  }
  uint64_t end = now_ns();
  printf("begin_ns %llu end_ns %llu\n", (unsigned long long)begin, (unsigned long long)end);
  fflush(stdout);
  int status = 0;
  waitpid(child, &status, 0);
  mosquitto_disconnect(m);
  mosquitto_loop_stop(m, false);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv) {
  mosquitto_lib_init();
  if (argc == 6 && strcmp(argv[1], "subscriber") == 0) {
    count = atol(argv[3]);
    qos = atoi(argv[5]);
    return bridge_subscriber(atoi(argv[2]), argv[4]);
  }
  if (argc == 5 && strcmp(argv[1], "flood-sub") == 0) {
    count = atol(argv[3]);
    qos = atoi(argv[4]);
    return flood_subscriber(atoi(argv[2]), -1);
  }
  if (argc == 5 && strcmp(argv[1], "flood") == 0) {
    count = atol(argv[3]);
    qos = atoi(argv[4]);
    return flood(atoi(argv[2]));
  }
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: %s PORT COUNT FILE [QOS] | subscriber PORT COUNT FILE QOS | flood-sub PORT COUNT QOS | flood PORT COUNT QOS\n", argv[0]);
    return 64;
  }
  int port = atoi(argv[1]);
  count = atol(argv[2]);
  qos = argc == 5 ? atoi(argv[4]) : 0;
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) _exit(subscriber(port, argv[3]));
  return publisher(port, child);
}
