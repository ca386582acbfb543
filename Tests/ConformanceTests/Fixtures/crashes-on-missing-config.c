/* Breaks config-errors-are-clear: uses `greeting` without checking that it was found. */
#define PLUGIN_NAME "crashes-on-missing-config"
#define READ_GREETING(self, error)                                         \
  do {                                                                     \
    (void)error;                                                           \
    self->api->config_string(self->host, "greeting", &self->greeting);     \
    if (strlen(self->greeting) == 0) self->greeting = "hello";             \
  } while (0)
#include "skeleton.h"
