/* Breaks callbacks-return-in-time: start() never returns. */
#define PLUGIN_NAME "blocks-in-start"
#include <unistd.h>
#define ON_START(self) for (;;) pause()
#include "skeleton.h"
