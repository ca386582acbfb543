/* Breaks publish-matches-port: publishes text on its integer port `count`. */
#define PLUGIN_NAME "publishes-wrong-type"
#define ON_START(self)                                                 \
  do {                                                                 \
    pb_value text;                                                     \
    memset(&text, 0, sizeof text);                                     \
    text.size = sizeof(pb_value);                                      \
    text.type = PB_VALUE_TEXT;                                         \
    text.u.text.data = "twelve";                                       \
    text.u.text.length = 6;                                            \
    self->api->publish(self->host, self->out_count, &text);            \
  } while (0)
#include "skeleton.h"
