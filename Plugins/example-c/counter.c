/*
 * example-c: a counter written in plain C against patchbay/plugin.h alone.
 *
 * Ports:
 *   input  increment  (event, trigger)  add `step` to the count
 *   input  set        (state, integer)  set the count
 *   output count      (state, integer)  the current count, published on every change
 *   output tick       (event, trigger)  every `tick_ms` milliseconds when tick_ms > 0
 * Config: step (integer, default 1), start (integer, default 0), tick_ms (integer, default 0).
 */
#include <patchbay/plugin.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct counter {
  const pb_host_api *api;
  pb_host *host;
  int64_t count;
  int64_t step;
  int64_t tick_ms;
  uint32_t in_increment, in_set, out_count, out_tick;
} counter;

static pb_status declare(counter *self, const char *name, pb_port_direction direction, pb_port_kind kind,
                         pb_value_type type, const char *description, uint32_t *index) {
  pb_port port = {
      .size = sizeof(pb_port), .direction = direction, .kind = kind, .type = type, .name = name, .description = description};
  return self->api->add_port(self->host, &port, index);
}

static void publish_count(counter *self) {
  pb_value value = {0};
  value.size = sizeof(pb_value);
  value.type = PB_VALUE_INTEGER;
  value.u.integer = self->count;
  self->api->publish(self->host, self->out_count, &value);
}

static void on_tick(void *user_data, uint64_t timer_id) {
  (void)timer_id;
  counter *self = user_data;
  pb_value value = {0};
  value.size = sizeof(pb_value);
  value.type = PB_VALUE_TRIGGER;
  self->api->publish(self->host, self->out_tick, &value);
  self->api->schedule(self->host, (uint64_t)self->tick_ms * 1000000u, on_tick, self, NULL);
}

static int64_t config_int(counter *self, const char *key, int64_t fallback, pb_status *status) {
  int64_t value = fallback;
  pb_status found = self->api->config_integer(self->host, key, &value);
  if (found != PB_OK && found != PB_ERR_NOT_FOUND) *status = found;
  return value;
}

static pb_status counter_create(const pb_create_args *args, void **instance_out, pb_error *error) {
  counter *self = calloc(1, sizeof(counter));
  if (!self) return PB_ERR_NO_MEMORY;
  self->api = args->api;
  self->host = args->host;
  pb_status status = PB_OK;
  self->step = config_int(self, "step", 1, &status);
  self->count = config_int(self, "start", 0, &status);
  self->tick_ms = config_int(self, "tick_ms", 0, &status);
  if (status != PB_OK || self->tick_ms < 0) {
    snprintf(error->message, PB_ERROR_CAPACITY, "step, start and tick_ms must be integers (tick_ms >= 0)");
    free(self);
    return PB_ERR_INVALID_CONFIG;
  }
  if (declare(self, "increment", PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, "add step", &self->in_increment) ||
      declare(self, "set", PB_PORT_INPUT, PB_PORT_STATE, PB_VALUE_INTEGER, "set the count", &self->in_set) ||
      declare(self, "count", PB_PORT_OUTPUT, PB_PORT_STATE, PB_VALUE_INTEGER, "the count", &self->out_count) ||
      declare(self, "tick", PB_PORT_OUTPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, "periodic tick", &self->out_tick)) {
    snprintf(error->message, PB_ERROR_CAPACITY, "the hub refused a port");
    free(self);
    return PB_ERR_INTERNAL;
  }
  *instance_out = self;
  return PB_OK;
}

static pb_status counter_start(void *instance, pb_error *error) {
  (void)error;
  counter *self = instance;
  publish_count(self);
  if (self->tick_ms > 0) self->api->schedule(self->host, (uint64_t)self->tick_ms * 1000000u, on_tick, self, NULL);
  self->api->log(self->host, PB_LOG_INFO, "counter started");
  return PB_OK;
}

static pb_status counter_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
  counter *self = instance;
  if (port == self->in_increment) {
    self->count += self->step;
  } else if (port == self->in_set && value->type == PB_VALUE_INTEGER) {
    self->count = value->u.integer;
  } else {
    snprintf(error->message, PB_ERROR_CAPACITY, "unexpected input port %u", port);
    return PB_ERR_UNKNOWN_PORT;
  }
  publish_count(self);
  return PB_OK;
}

static pb_status counter_stop(void *instance, pb_error *error) {
  (void)instance;
  (void)error;
  return PB_OK;
}

static void counter_destroy(void *instance) { free(instance); }

/* Bundled, this plugin carries patchbay's version (Package.swift defines PATCHBAY_VERSION);
 * compiled on its own, as the start of your plugin, it carries its own. */
#ifndef PATCHBAY_VERSION
#define PATCHBAY_VERSION "1.0.0"
#endif

static const pb_plugin_descriptor descriptor = {
    .size = sizeof(pb_plugin_descriptor),
    .abi_major = PB_ABI_MAJOR,
    .abi_minor = 0, /* the lowest ABI minor it needs: it uses nothing newer than 1.0 */
    .name = "example-c",
    .version = PATCHBAY_VERSION,
    .description = "A counter written in plain C: increment, set, count, tick",
    .create = counter_create,
    .start = counter_start,
    .receive = counter_receive,
    .stop = counter_stop,
    .destroy = counter_destroy,
};

#ifndef PB_TEST_DESCRIBE_SYMBOL
#define PB_TEST_DESCRIBE_SYMBOL patchbay_plugin_describe
#endif

__attribute__((visibility("default"))) const pb_plugin_descriptor *PB_TEST_DESCRIBE_SYMBOL(void) {
  return &descriptor;
}
