/*
 * doorbell: a patchbay plugin in plain C, the starting point of your own.
 *
 * Ports:
 *   input  press    (event, button)   a button press; the actions listed in `ring_on` ring
 *   output ring     (event, text)     the `message`, once per ring
 *   output rings    (state, integer)  how many times it rang since the instance started
 * Config (the instance's section in /etc/patchbay/conf.d):
 *   message = "Someone is at the door"   (text, default "ding dong")
 *   ring_on_hold = true                   (bool, default false: only clicks ring)
 *
 * Build against the installed patchbay-dev: `make` (see Makefile); package: `dpkg-buildpackage -b`.
 * Every rule of the ABI is in <patchbay/plugin.h>.
 */
#include <patchbay/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct doorbell {
  const pb_host_api *api;
  pb_host *host;
  const char *message; /* owned by the host until destroy() returns */
  uint32_t ring_on_hold;
  int64_t rings;
  uint32_t in_press, out_ring, out_rings;
} doorbell;

static pb_status declare(doorbell *self, const char *name, pb_port_direction direction, pb_port_kind kind,
                         pb_value_type type, const char *description, uint32_t *index) {
  pb_port port = {sizeof(pb_port), direction, kind, type, name, description};
  return self->api->add_port(self->host, &port, index);
}

static void publish_rings(doorbell *self) {
  pb_value value = {0};
  value.size = sizeof(pb_value);
  value.type = PB_VALUE_INTEGER;
  value.u.integer = self->rings;
  self->api->publish(self->host, self->out_rings, &value);
}

static pb_status doorbell_create(const pb_create_args *args, void **instance_out, pb_error *error) {
  doorbell *self = calloc(1, sizeof(doorbell));
  if (!self) return PB_ERR_NO_MEMORY;
  self->api = args->api;
  self->host = args->host;
  self->message = "ding dong";
  pb_status status = self->api->config_string(self->host, "message", &self->message);
  if (status != PB_OK && status != PB_ERR_NOT_FOUND) {
    snprintf(error->message, PB_ERROR_CAPACITY, "message must be a text, like message = \"ding dong\"");
    free(self);
    return PB_ERR_INVALID_CONFIG;
  }
  status = self->api->config_bool(self->host, "ring_on_hold", &self->ring_on_hold);
  if (status != PB_OK && status != PB_ERR_NOT_FOUND) {
    snprintf(error->message, PB_ERROR_CAPACITY, "ring_on_hold must be true or false");
    free(self);
    return PB_ERR_INVALID_CONFIG;
  }
  if (declare(self, "press", PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_BUTTON, "a button press", &self->in_press) ||
      declare(self, "ring", PB_PORT_OUTPUT, PB_PORT_EVENT, PB_VALUE_TEXT, "the message, per ring", &self->out_ring) ||
      declare(self, "rings", PB_PORT_OUTPUT, PB_PORT_STATE, PB_VALUE_INTEGER, "rings so far", &self->out_rings)) {
    snprintf(error->message, PB_ERROR_CAPACITY, "the hub refused a port");
    free(self);
    return PB_ERR_INTERNAL;
  }
  *instance_out = self;
  return PB_OK;
}

static pb_status doorbell_start(void *instance, pb_error *error) {
  (void)error;
  doorbell *self = instance;
  publish_rings(self);
  self->api->log(self->host, PB_LOG_INFO, "doorbell ready");
  return PB_OK;
}

static pb_status doorbell_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
  doorbell *self = instance;
  if (port != self->in_press || value->type != PB_VALUE_BUTTON) {
    snprintf(error->message, PB_ERROR_CAPACITY, "unexpected input port %u", port);
    return PB_ERR_UNKNOWN_PORT;
  }
  pb_button_action action = value->u.button.action;
  int rings = action == PB_BUTTON_CLICK || action == PB_BUTTON_DOUBLE_CLICK ||
              (action == PB_BUTTON_HOLD && self->ring_on_hold);
  if (!rings) return PB_OK;
  self->rings += 1;
  pb_value ring = {0};
  ring.size = sizeof(pb_value);
  ring.type = PB_VALUE_TEXT;
  ring.u.text.data = self->message;
  ring.u.text.length = (uint32_t)strlen(self->message);
  self->api->publish(self->host, self->out_ring, &ring);
  publish_rings(self);
  return PB_OK;
}

static pb_status doorbell_stop(void *instance, pb_error *error) {
  (void)instance;
  (void)error;
  return PB_OK;
}

static void doorbell_destroy(void *instance) { free(instance); }

static const pb_plugin_descriptor descriptor = {
    .size = sizeof(pb_plugin_descriptor),
    .abi_major = PB_ABI_MAJOR,
    .abi_minor = 0, /* the lowest minor this plugin needs: it loads in every v1 hub */
    .name = "doorbell",
    .version = "1.0.0",
    .description = "Rings (publishes a message and counts) on button clicks",
    .create = doorbell_create,
    .start = doorbell_start,
    .receive = doorbell_receive,
    .stop = doorbell_stop,
    .destroy = doorbell_destroy,
};

/* The one exported symbol; build with -fvisibility=hidden so nothing else is. */
__attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
  return &descriptor;
}
