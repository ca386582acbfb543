/// A C plugin for the ABI 1.2 additions, built by the tests against the header alone: a
/// device whose `level` can change on its own side (`report` simulates that, and the plugin
/// publishes it on `level.reported`, which mirrors `level`); its peer state and a note shown
/// in status; and a timer whose user data the host releases when it is cancelled. Every
/// `level` it receives is appended to the file named by its `record` config key.
enum DeviceStatePlugin {
  static let source = #"""
    #include <patchbay/plugin.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>

    typedef struct device {
      const pb_host_api *api;
      pb_host *host;
      char record[512];
      uint32_t in_level, in_report, out_reported, out_peer, out_note, out_timer;
    } device;

    static pb_status declare(device *self, const char *name, pb_port_direction direction, pb_value_type type,
                             uint32_t flags, uint32_t mirrors, uint32_t *index) {
      pb_port port = {sizeof(pb_port), direction, PB_PORT_STATE, type, name, NULL, flags, mirrors};
      return self->api->add_port(self->host, &port, index);
    }

    static void publish_text(device *self, uint32_t port, const char *text) {
      pb_value value = {0};
      value.size = sizeof(pb_value);
      value.type = PB_VALUE_TEXT;
      value.u.text.data = text;
      value.u.text.length = (uint32_t)strlen(text);
      self->api->publish(self->host, port, &value);
    }

    static void never(void *user_data, uint64_t id) { (void)user_data; (void)id; }

    /* Runs on the plugin context once the cancelled timer's data may go. */
    static void release(void *user_data) {
      device *self = user_data;
      publish_text(self, self->out_timer, "released");
    }

    static pb_status device_create(const pb_create_args *args, void **instance_out, pb_error *error) {
      device *self = calloc(1, sizeof(device));
      self->api = args->api;
      self->host = args->host;
      const char *record = "";
      self->api->config_string(self->host, "record", &record);
      snprintf(self->record, sizeof self->record, "%s", record);
      uint32_t refused;
      if (declare(self, "level", PB_PORT_INPUT, PB_VALUE_INTEGER, 0, 0, &self->in_level) ||
          declare(self, "report", PB_PORT_INPUT, PB_VALUE_INTEGER, 0, 0, &self->in_report) ||
          declare(self, "level.reported", PB_PORT_OUTPUT, PB_VALUE_INTEGER, PB_PORT_MIRRORS_INPUT, self->in_level,
                  &self->out_reported) ||
          declare(self, "peer", PB_PORT_OUTPUT, PB_VALUE_TEXT, PB_PORT_PEER_STATUS, 0, &self->out_peer) ||
          declare(self, "note", PB_PORT_OUTPUT, PB_VALUE_TEXT, PB_PORT_SHOWN_IN_STATUS, 0, &self->out_note) ||
          declare(self, "timer", PB_PORT_OUTPUT, PB_VALUE_TEXT, 0, 0, &self->out_timer) ||
          /* Refused: an output cannot mirror another output. */
          declare(self, "bad", PB_PORT_OUTPUT, PB_VALUE_TEXT, PB_PORT_MIRRORS_INPUT, self->out_peer, &refused) == PB_OK) {
        snprintf(error->message, PB_ERROR_CAPACITY, "a port was not declared as expected");
        free(self);
        return PB_ERR_INTERNAL;
      }
      *instance_out = self;
      return PB_OK;
    }

    static pb_status device_start(void *instance, pb_error *error) {
      (void)error;
      device *self = instance;
      publish_text(self, self->out_peer, "warming up");
      publish_text(self, self->out_note, "hello from the device");
      if (!PB_HOST_HAS(self->api, schedule_with_release)) return PB_ERR_NOT_SUPPORTED;
      uint64_t timer = 0;
      self->api->schedule_with_release(self->host, 3600ull * 1000000000ull, never, release, self, &timer);
      return self->api->cancel_timer(self->host, timer);
    }

    static pb_status device_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)error;
      device *self = instance;
      if (port == self->in_report) {
        /* The device changed on its own side: report it. */
        pb_value reported = *value;
        self->api->publish(self->host, self->out_reported, &reported);
      } else if (port == self->in_level) {
        FILE *file = fopen(self->record, "a");
        if (file) {
          fprintf(file, "%lld\n", (long long)value->u.integer);
          fclose(file);
        }
      }
      return PB_OK;
    }

    static pb_status device_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static void device_destroy(void *instance) { free(instance); }

    static const pb_plugin_descriptor descriptor = {
        .size = sizeof(pb_plugin_descriptor),
        .abi_major = PB_ABI_MAJOR,
        .abi_minor = 2,
        .name = "device",
        .version = "0.0.1",
        .description = "a device that changes on its own side",
        .create = device_create,
        .start = device_start,
        .receive = device_receive,
        .stop = device_stop,
        .destroy = device_destroy,
    };

    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#
}
