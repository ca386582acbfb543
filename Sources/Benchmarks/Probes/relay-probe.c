/*
 * The raw relay baseline of `patchbay-bench`: producer -> relay -> consumer, three processes on
 * two Unix SOCK_SEQPACKET socketpairs, the hub's transport. The relay is the smallest possible
 * process-isolated broker: one thread, poll() on both sockets, then every frame that is there
 * received and sent on at once, one system call each. A hop through the hub (plugin host -> hub -> plugin host) has the same shape, so
 * this is its physical limit on the machine at hand.
 *
 *   relay-probe latency COUNT FILE     ping-pong; the consumer writes each one-way latency
 *                                      (receive time minus the producer's CLOCK_MONOTONIC
 *                                      stamp, u64 ns) to FILE and echoes the frame back
 *                                      through the relay
 *   relay-probe throughput COUNT       the producer sends COUNT frames as fast as it can;
 *                                      prints "received N first_ns F last_ns L relay_cpu_ns C"
 * Both print "relay_cpu_ns C" (the relay's user + system time, from getrusage) at the end;
 * latency prints "relay_pid P" first (callgrind names its output after it).
 * Frames are 32 bytes, as in socketpair-probe.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { FRAME = 32 };

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

/* Forwards frames between `left` and `right` until both are closed; reports its CPU time
 * through `report` (a pipe) since the parent cannot see a grandchild's rusage. */
__attribute__((noinline)) static void relay(int left, int right, int report) {
  struct pollfd fds[2] = {{left, POLLIN, 0}, {right, POLLIN, 0}};
  unsigned char frame[FRAME];
  int open = 2;
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) die("relay poll");
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      /* Drain what is there before polling again, one send per frame. */
      for (;;) {
        ssize_t n = recv(fds[i].fd, frame, FRAME, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          fds[i].fd = -1;
          open--;
          break;
        }
        if (send(i == 0 ? right : left, frame, (size_t)n, 0) != n) die("relay send");
      }
    }
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  uint64_t cpu = (uint64_t)usage.ru_utime.tv_sec * 1000000000ull + (uint64_t)usage.ru_utime.tv_usec * 1000ull +
                 (uint64_t)usage.ru_stime.tv_sec * 1000000000ull + (uint64_t)usage.ru_stime.tv_usec * 1000ull;
  if (write(report, &cpu, sizeof cpu) != sizeof cpu) die("relay report");
  _exit(0);
}

/* The relay in a child of its own; returns its pid and the pipe it reports on. */
static pid_t start_relay(int producer_side[2], int consumer_side[2], int *report) {
  int pipefd[2];
  if (pipe(pipefd) != 0) die("pipe");
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    close(pipefd[0]);
    close(producer_side[0]);
    close(consumer_side[1]);
    relay(producer_side[1], consumer_side[0], pipefd[1]);
  }
  close(pipefd[1]);
  close(producer_side[1]);
  close(consumer_side[0]);
  *report = pipefd[0];
  return pid;
}

static uint64_t finish_relay(pid_t relay_pid, int report) {
  uint64_t cpu = 0;
  if (read(report, &cpu, sizeof cpu) != sizeof cpu) cpu = 0;
  int status = 0;
  waitpid(relay_pid, &status, 0);
  return cpu;
}

static int latency(long count, const char *path, int a[2], int b[2]) {
  int report;
  pid_t relay_pid = start_relay(a, b, &report);
  printf("relay_pid %d\n", (int)relay_pid);
  fflush(stdout);
  pid_t consumer = fork();
  if (consumer < 0) die("fork");
  unsigned char frame[FRAME] = {0};
  if (consumer == 0) {
    close(a[0]);
    uint64_t *latencies = calloc((size_t)count, sizeof(uint64_t));
    if (!latencies) die("calloc");
    for (long i = 0; i < count; i++) {
      if (recv(b[1], frame, FRAME, 0) != FRAME) die("consumer recv");
      uint64_t received = now_ns(), sent;
      memcpy(&sent, frame, sizeof sent);
      latencies[i] = received - sent;
      if (send(b[1], frame, FRAME, 0) != FRAME) die("consumer send");
    }
    FILE *f = fopen(path, "wb");
    if (!f) die(path);
    fwrite(latencies, sizeof(uint64_t), (size_t)count, f);
    fclose(f);
    _exit(0);
  }
  close(b[1]);
  for (long i = 0; i < count; i++) {
    uint64_t stamp = now_ns();
    memcpy(frame, &stamp, sizeof stamp);
    if (send(a[0], frame, FRAME, 0) != FRAME) die("send");
    if (recv(a[0], frame, FRAME, 0) != FRAME) die("recv");
  }
  int status = 0;
  waitpid(consumer, &status, 0);
  close(a[0]);
  printf("relay_cpu_ns %llu\n", (unsigned long long)finish_relay(relay_pid, report));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int throughput(long count, int a[2], int b[2]) {
  int report;
  pid_t relay_pid = start_relay(a, b, &report);
  int results[2];
  if (pipe(results) != 0) die("pipe");
  pid_t consumer = fork();
  if (consumer < 0) die("fork");
  unsigned char frame[FRAME] = {0};
  if (consumer == 0) {
    close(a[0]);
    close(results[0]);
    uint64_t first = 0, last = 0;
    for (long i = 0; i < count; i++) {
      if (recv(b[1], frame, FRAME, 0) != FRAME) die("consumer recv");
      last = now_ns();
      if (i == 0) first = last;
    }
    uint64_t times[2] = {first, last};
    if (write(results[1], times, sizeof times) != sizeof times) die("consumer report");
    _exit(0);
  }
  close(b[1]);
  close(results[1]);
  for (long i = 0; i < count; i++) {
    memcpy(frame, &i, sizeof i);
    if (send(a[0], frame, FRAME, 0) != FRAME) die("send");
  }
  uint64_t times[2] = {0, 0};
  if (read(results[0], times, sizeof times) != sizeof times) die("consumer result");
  int status = 0;
  waitpid(consumer, &status, 0);
  close(a[0]);
  uint64_t cpu = finish_relay(relay_pid, report);
  printf("received %ld first_ns %llu last_ns %llu relay_cpu_ns %llu\n", count, (unsigned long long)times[0],
         (unsigned long long)times[1], (unsigned long long)cpu);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s latency COUNT FILE | throughput COUNT\n", argv[0]);
    return 64;
  }
  long count = atol(argv[2]);
  int a[2], b[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, a) != 0) die("socketpair");
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, b) != 0) die("socketpair");
  if (strcmp(argv[1], "latency") == 0 && argc == 4) return latency(count, argv[3], a, b);
  if (strcmp(argv[1], "throughput") == 0) return throughput(count, a, b);
  fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 64;
}
