/// A C plugin that defies its supervisor, built by the tests against the header alone. Its
/// `mode` config key picks what it does; every mode declares the same ports (`poke`, an event
/// trigger input; `tick`, an event trigger output).
enum StubbornPlugin {
  static let source = #"""
    #define _GNU_SOURCE
    #include <patchbay/plugin.h>
    #include <pthread.h>
    #include <signal.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <unistd.h>

    typedef struct stubborn {
      const pb_host_api *api;
      pb_host *host;
      char mode[64];
      uint32_t in_poke, out_tick;
    } stubborn;

    static int is(const stubborn *self, const char *mode) { return strcmp(self->mode, mode) == 0; }

    /* Publishes triggers as fast as the hub takes them, for ever. */
    static void *flood(void *argument) {
      stubborn *self = argument;
      pb_value value = {0};
      value.size = sizeof(pb_value);
      value.type = PB_VALUE_TRIGGER;
      for (;;) {
        if (self->api->publish(self->host, self->out_tick, &value) != PB_OK) usleep(1000);
      }
      return NULL;
    }

    static pb_status stubborn_create(const pb_create_args *args, void **out, pb_error *error) {
      stubborn *self = calloc(1, sizeof(stubborn));
      self->api = args->api;
      self->host = args->host;
      const char *text = NULL;
      if (self->api->config_string(self->host, "mode", &text) == PB_OK) snprintf(self->mode, sizeof self->mode, "%s", text);
      pb_port poke = {sizeof(pb_port), PB_PORT_INPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, "poke", "do the thing"};
      pb_port tick = {sizeof(pb_port), PB_PORT_OUTPUT, PB_PORT_EVENT, PB_VALUE_TRIGGER, "tick", "a trigger"};
      if (self->api->add_port(self->host, &poke, &self->in_poke) != PB_OK ||
          self->api->add_port(self->host, &tick, &self->out_tick) != PB_OK) {
        snprintf(error->message, PB_ERROR_CAPACITY, "ports refused");
        return PB_ERR_INTERNAL;
      }
      if (is(self, "refuse_config")) {
        snprintf(error->message, PB_ERROR_CAPACITY, "'mode' names no device here");
        return PB_ERR_INVALID_CONFIG;
      }
      if (is(self, "unavailable")) {
        snprintf(error->message, PB_ERROR_CAPACITY, "the device does not answer");
        return PB_ERR_UNAVAILABLE;
      }
      if (is(self, "hang_create")) for (;;) pause();
      /* Longer than the hub waits for a create() before it starts the others. */
      if (is(self, "slow_create")) sleep(8);
      if (is(self, "unavailable_once")) {
        /* The first attempt fails (the device is not there yet); a marker file remembers it. */
        char marker[4096];
        snprintf(marker, sizeof marker, "%s/tried", args->state_directory);
        if (access(marker, F_OK) != 0) {
          FILE *file = fopen(marker, "w");
          if (file) fclose(file);
          snprintf(error->message, PB_ERROR_CAPACITY, "the device is not there yet");
          return PB_ERR_UNAVAILABLE;
        }
      }
      *out = self;
      return PB_OK;
    }

    static pb_status stubborn_start(void *instance, pb_error *error) {
      (void)error;
      stubborn *self = instance;
      pthread_t thread;
      if (is(self, "abort_at_start")) abort();
      if (is(self, "flood")) pthread_create(&thread, NULL, flood, self);
      return PB_OK;
    }

    static pb_status stubborn_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)port; (void)value; (void)error;
      stubborn *self = instance;
      if (is(self, "block_in_receive")) for (;;) pause();
      if (is(self, "segv_in_receive")) raise(SIGSEGV);
      if (is(self, "exit3_in_receive")) exit(3);
      return PB_OK;
    }

    static pb_status stubborn_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static void stubborn_destroy(void *instance) { (void)instance; /* a flood thread may still use it */ }

    static const pb_plugin_descriptor descriptor = {
        .size = sizeof(pb_plugin_descriptor),
        .abi_major = PB_ABI_MAJOR,
        .abi_minor = PB_ABI_MINOR,
        .name = "stubborn",
        .version = "0.0.1",
        .description = "defies its supervisor on purpose",
        .create = stubborn_create,
        .start = stubborn_start,
        .receive = stubborn_receive,
        .stop = stubborn_stop,
        .destroy = stubborn_destroy,
    };

    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#
}
