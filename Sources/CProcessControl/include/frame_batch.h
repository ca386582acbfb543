#ifndef PATCHBAY_FRAME_BATCH_H
#define PATCHBAY_FRAME_BATCH_H

#include <stddef.h>

/* Receives up to a plan's `count` frames of a SOCK_SEQPACKET socket in one system call
 * (recvmmsg): blocks for the first, takes the others only if they are already queued. Frame i
 * lands at buffers + i * slot_size; lengths[i] is its real length (longer than slot_size: it
 * was cut). A length of 0 is the end of the stream (frames are never empty). Returns how many
 * entries it filled, or -1 with errno. The message headers are set up once, by
 * pc_receive_plan_create, for one reader's slots (recvmmsg writes only the lengths and flags
 * into them): a read does not build them again. `count` is at most 64; NULL: out of memory. */
typedef struct pc_receive_plan pc_receive_plan;
pc_receive_plan *pc_receive_plan_create(unsigned char *buffers, size_t slot_size, unsigned count);
void pc_receive_plan_destroy(pc_receive_plan *plan);
int pc_receive_planned(int fd, pc_receive_plan *plan, size_t *lengths);

/* Sends up to `count` frames in one system call (sendmmsg) with `flags` (MSG_DONTWAIT for a
 * send that must not block). Frame i is frames[i], lengths[i] bytes long. Returns how many
 * frames went out, in order (fewer than `count`: the socket filled up), or -1 with errno when
 * not even the first did. */
int pc_send_frames(int fd, const unsigned char *const *frames, const size_t *lengths, unsigned count, int flags);

#endif
