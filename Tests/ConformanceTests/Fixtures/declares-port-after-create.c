/* Breaks ports-declared-in-create: declares a port in start(). */
#define PLUGIN_NAME "declares-port-after-create"
#define ON_START(self)                                                          \
  do {                                                                          \
    uint32_t late;                                                              \
    declare(self, "late", PB_PORT_OUTPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, &late); \
  } while (0)
#include "skeleton.h"
