/*
 * A small plugin that keeps every rule of patchbay/plugin.h, with one hook per callback. Each
 * fixture next to this file breaks exactly one rule by defining a hook, then includes it:
 * `patchbay plugin test` must name that rule, and only that one.
 *
 * Ports: input poke (event, trigger), input level (state, integer), output count (state,
 * integer). Config: greeting (string, required).
 */
#include <patchbay/plugin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PLUGIN_NAME
#error "define PLUGIN_NAME (the descriptor's name, as in libpatchbay-plugin-NAME.so)"
#endif
#ifndef ABI_MAJOR
#define ABI_MAJOR PB_ABI_MAJOR
#endif

typedef struct fixture {
  const pb_host_api *api;
  pb_host *host;
  const char *greeting;
  uint32_t in_poke, in_level, out_count;
  int64_t count;
  pthread_t worker;
  int has_worker;
  volatile int running;
} fixture;

static void publish_integer(fixture *self, int64_t number) {
  pb_value value;
  memset(&value, 0, sizeof value);
  value.size = sizeof(pb_value);
  value.type = PB_VALUE_INTEGER;
  value.u.integer = number;
  self->api->publish(self->host, self->out_count, &value);
}

static pb_status declare(fixture *self, const char *name, pb_port_direction direction, pb_port_kind kind,
                         pb_value_type type, uint32_t *index) {
  pb_port port = {.size = sizeof(pb_port), .direction = direction, .kind = kind, .type = type, .name = name};
  return self->api->add_port(self->host, &port, index);
}

/* Reads the required key `greeting`; a fixture may read it carelessly instead. */
#ifndef READ_GREETING
#define READ_GREETING(self, error)                                                                   \
  do {                                                                                               \
    if (self->api->config_string(self->host, "greeting", &self->greeting) != PB_OK) {              \
      snprintf(error->message, PB_ERROR_CAPACITY, "greeting: required, a string (for example \"hi\")"); \
      free(self);                                                                                    \
      return PB_ERR_INVALID_CONFIG;                                                                  \
    }                                                                                                \
  } while (0)
#endif
#ifndef ON_CREATE
#define ON_CREATE(self)
#endif
#ifndef ON_START
#define ON_START(self)
#endif
#ifndef ON_RECEIVE
#define ON_RECEIVE(self, port)
#endif
#ifndef ON_STOP
#define ON_STOP(self)
#endif

static pb_status fixture_create(const pb_create_args *args, void **instance_out, pb_error *error) {
  fixture *self = calloc(1, sizeof(fixture));
  if (!self) return PB_ERR_NO_MEMORY;
  self->api = args->api;
  self->host = args->host;
  READ_GREETING(self, error);
  if (declare(self, "poke", PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, &self->in_poke) ||
      declare(self, "level", PB_PORT_INPUT, PB_PORT_STATE, PB_VALUE_INTEGER, &self->in_level) ||
      declare(self, "count", PB_PORT_OUTPUT, PB_PORT_STATE, PB_VALUE_INTEGER, &self->out_count)) {
    snprintf(error->message, PB_ERROR_CAPACITY, "the host refused a port");
    free(self);
    return PB_ERR_INTERNAL;
  }
  ON_CREATE(self);
  *instance_out = self;
  return PB_OK;
}

static pb_status fixture_start(void *instance, pb_error *error) {
  (void)error;
  fixture *self = instance;
  self->running = 1;
  ON_START(self);
  publish_integer(self, self->count);
  return PB_OK;
}

static pb_status fixture_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
  (void)error;
  fixture *self = instance;
  ON_RECEIVE(self, port);
  if (port == self->in_poke) self->count += 1;
  if (port == self->in_level) self->count = value->u.integer;
  publish_integer(self, self->count);
  return PB_OK;
}

static pb_status fixture_stop(void *instance, pb_error *error) {
  (void)error;
  fixture *self = instance;
  (void)self;
  ON_STOP(self);
  return PB_OK;
}

static void fixture_destroy(void *instance) {
  fixture *self = instance;
  self->running = 0;
  if (self->has_worker) pthread_join(self->worker, NULL);
  free(self);
}

static const pb_plugin_descriptor descriptor = {
    .size = sizeof(pb_plugin_descriptor),
    .abi_major = ABI_MAJOR,
    .abi_minor = PB_ABI_MINOR,
    .name = PLUGIN_NAME,
    .version = "0.1.0",
    .description = "a conformance fixture",
    .create = fixture_create,
    .start = fixture_start,
    .receive = fixture_receive,
    .stop = fixture_stop,
    .destroy = fixture_destroy,
};

__attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
  return &descriptor;
}
