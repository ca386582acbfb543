/* Breaks config-errors-are-clear: refuses a missing `greeting` with PB_ERR_BUSY (ABI 1.1's
 * newest code) instead of PB_ERR_INVALID_CONFIG; the report must name the code. */
#define PLUGIN_NAME "refuses-config-as-busy"
#define READ_GREETING(self, error)                                                            \
  do {                                                                                        \
    if (self->api->config_string(self->host, "greeting", &self->greeting) != PB_OK) {       \
      snprintf(error->message, PB_ERROR_CAPACITY, "greeting: required");                    \
      free(self);                                                                             \
      return PB_ERR_BUSY;                                                                     \
    }                                                                                         \
  } while (0)
#include "skeleton.h"
