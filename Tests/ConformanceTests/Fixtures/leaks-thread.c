/* Breaks no-threads-after-stop: starts a thread that nothing ever ends. */
#define PLUGIN_NAME "leaks-thread"
#include <unistd.h>
static void *forever(void *argument) {
  (void)argument;
  for (;;) pause();
  return NULL;
}
#define ON_START(self)                                  \
  do {                                                  \
    pthread_t thread;                                   \
    if (pthread_create(&thread, NULL, forever, NULL) == 0) pthread_detach(thread); \
  } while (0)
#include "skeleton.h"
