/*
 * The raw baseline of `patchbay-bench`: two processes on a Unix SOCK_SEQPACKET socketpair, the
 * transport between the hub and each plugin host, with nothing else in the way.
 *
 *   socketpair-probe latency COUNT FILE     ping-pong; the child writes each one-way latency
 *                                           (receive time minus the sender's CLOCK_MONOTONIC
 *                                           stamp, u64 ns) to FILE
 *   socketpair-probe throughput COUNT       the parent sends COUNT frames as fast as it can;
 *                                           prints "received N first_ns F last_ns L"
 * Frames are 32 bytes, about the size of the hub's frame for an integer value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int latency(long count, const char *path, int fds[2]) {
  pid_t child = fork();
  if (child < 0) die("fork");
  unsigned char frame[FRAME] = {0};
  if (child == 0) {
    close(fds[0]);
    uint64_t *latencies = calloc((size_t)count, sizeof(uint64_t));
    if (!latencies) die("calloc");
    for (long i = 0; i < count; i++) {
      if (recv(fds[1], frame, FRAME, 0) != FRAME) die("child recv");
      uint64_t received = now_ns(), sent;
      memcpy(&sent, frame, sizeof sent);
      latencies[i] = received - sent;
      if (send(fds[1], frame, FRAME, 0) != FRAME) die("child send");
    }
    FILE *f = fopen(path, "wb");
    if (!f) die(path);
    fwrite(latencies, sizeof(uint64_t), (size_t)count, f);
    fclose(f);
    _exit(0);
  }
  close(fds[1]);
  for (long i = 0; i < count; i++) {
    uint64_t stamp = now_ns();
    memcpy(frame, &stamp, sizeof stamp);
    if (send(fds[0], frame, FRAME, 0) != FRAME) die("send");
    if (recv(fds[0], frame, FRAME, 0) != FRAME) die("recv");
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int throughput(long count, int fds[2]) {
  pid_t child = fork();
  if (child < 0) die("fork");
  unsigned char frame[FRAME] = {0};
  if (child == 0) {
    close(fds[0]);
    uint64_t first = 0, last = 0;
    for (long i = 0; i < count; i++) {
      if (recv(fds[1], frame, FRAME, 0) != FRAME) die("child recv");
      last = now_ns();
      if (i == 0) first = last;
    }
    printf("received %ld first_ns %llu last_ns %llu\n", count, (unsigned long long)first, (unsigned long long)last);
    fflush(stdout);
    _exit(0);
  }
  close(fds[1]);
  for (long i = 0; i < count; i++) {
    memcpy(frame, &i, sizeof i);
    if (send(fds[0], frame, FRAME, 0) != FRAME) die("send");
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s latency COUNT FILE | throughput COUNT\n", argv[0]);
    return 64;
  }
  long count = atol(argv[2]);
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) != 0) die("socketpair");
  if (strcmp(argv[1], "latency") == 0 && argc == 4) return latency(count, argv[3], fds);
  if (strcmp(argv[1], "throughput") == 0) return throughput(count, fds);
  fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 64;
}
