/* Breaks no-publish-after-stop: its worker thread is told to end only in destroy(), so it goes
 * on publishing after stop() returned (it is joined, so no thread is left behind). */
#define PLUGIN_NAME "publishes-after-stop"
#include <time.h>
static void *keep_publishing(void *argument);
#define ON_START(self) (self->has_worker = pthread_create(&self->worker, NULL, keep_publishing, self) == 0)
#include "skeleton.h"
static void *keep_publishing(void *argument) {
  fixture *self = argument;
  struct timespec pause = {0, 10 * 1000 * 1000};
  while (self->running) {
    publish_integer(self, 2);
    nanosleep(&pause, NULL);
  }
  return NULL;
}
