/* Several frames per system call for the hub's reader threads: under a flood a reader wakes
 * once for all queued frames instead of once per frame, and sends what they routed to one
 * consumer together. Swift's Glibc module does not show recvmmsg and sendmmsg (they need
 * _GNU_SOURCE), hence C. */
#define _GNU_SOURCE
#include "frame_batch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define PC_MAX_BATCH 64

struct pc_receive_plan {
  unsigned count;
  struct mmsghdr messages[PC_MAX_BATCH];
  struct iovec vectors[PC_MAX_BATCH];
};

pc_receive_plan *pc_receive_plan_create(unsigned char *buffers, size_t slot_size, unsigned count) {
  pc_receive_plan *plan = calloc(1, sizeof *plan);
  if (plan == NULL) return NULL;
  plan->count = count > PC_MAX_BATCH ? PC_MAX_BATCH : count;
  for (unsigned i = 0; i < plan->count; i++) {
    plan->vectors[i].iov_base = buffers + (size_t)i * slot_size;
    plan->vectors[i].iov_len = slot_size;
    plan->messages[i].msg_hdr.msg_iov = &plan->vectors[i];
    plan->messages[i].msg_hdr.msg_iovlen = 1;
  }
  return plan;
}

void pc_receive_plan_destroy(pc_receive_plan *plan) { free(plan); }

int pc_receive_planned(int fd, pc_receive_plan *plan, size_t *lengths) {
  /* MSG_TRUNC: each length is the frame's real one, so an oversized frame is recognised. The
   * kernel reads the iovecs and writes msg_len and msg_flags (no name or control buffers). */
  int received = recvmmsg(fd, plan->messages, plan->count, MSG_WAITFORONE | MSG_TRUNC, NULL);
  if (received < 0) return -1;
  for (int i = 0; i < received; i++) {
    lengths[i] = plan->messages[i].msg_len;
    if (plan->messages[i].msg_len == 0) return i + 1; /* end of stream: nothing after it counts */
  }
  return received;
}

int pc_send_frames(int fd, const unsigned char *const *frames, const size_t *lengths, unsigned count, int flags) {
  struct mmsghdr messages[PC_MAX_BATCH];
  struct iovec vectors[PC_MAX_BATCH];
  if (count > PC_MAX_BATCH) count = PC_MAX_BATCH;
  memset(messages, 0, sizeof(struct mmsghdr) * count);
  for (unsigned i = 0; i < count; i++) {
    vectors[i].iov_base = (void *)frames[i];
    vectors[i].iov_len = lengths[i];
    messages[i].msg_hdr.msg_iov = &vectors[i];
    messages[i].msg_hdr.msg_iovlen = 1;
  }
  int sent;
  do {
    sent = sendmmsg(fd, messages, count, flags | MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent;
}
