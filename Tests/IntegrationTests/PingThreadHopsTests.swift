import Foundation
import PatchbayTestSupport
import Testing

/// The hop count (issue 29.3) belongs to the thread inside receive(): a plugin whose own thread
/// publishes a new value while receive() runs on the plugin context is not passing that input
/// on. The benchmark's ping-pong probe does exactly this (a thread sends each ping when the
/// previous echo is back); when the host gave every publish the receiving input's hops, each
/// round added two and the 8th ping was cut as a loop.
@Suite struct PingThreadHopsTests {
  @Test func aPluginThreadPublishingDuringReceiveStartsAtZeroHops() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "pinger", source: Self.pingerSource)
    try harness.compileCPlugin(name: "echoer", source: Self.echoerSource)
    try harness.writeConfig(
      HubTOML()
        .instance("pinger", plugin: "pinger")
        .instance("echoer", plugin: "echoer")
        .route(from: "pinger.ping", to: "echoer.value")
        .route(from: "echoer.echo", to: "pinger.echo"))
    try harness.start()
    try harness.waitUntilRunning("pinger", "echoer")
    func inputs(_ name: String) throws -> Int { try harness.instanceStatus(name)?["messagesIn"] as? Int ?? -1 }
    // 40 rounds, each ping sent from the pinger's thread while its receive(echo) still runs.
    try eventually("40 pings came back", within: 120) { try inputs("pinger") >= 40 }
    let routes = try harness.status()["routes"] as? [[String: Any]] ?? []
    #expect(routes.allSatisfy { ($0["loopDrops"] as? Int ?? 0) == 0 }, "\(routes)")
    #expect(!harness.log.contains("passed through 16 routes"), "\(harness.log)")
    try harness.stop()
  }

  static let pingerSource = #"""
    #include <patchbay/plugin.h>
    #include <pthread.h>
    #include <stdlib.h>

    typedef struct pinger {
      const pb_host_api *api;
      pb_host *host;
      uint32_t in_echo, out_ping;
      pthread_mutex_t lock;
      pthread_cond_t changed;
      int echoes, pinged, stopping;
      pthread_t thread;
    } pinger;

    static void ping(pinger *self, int n) {
      pb_value out = {0};
      out.size = sizeof(pb_value);
      out.type = PB_VALUE_INTEGER;
      out.u.integer = n;
      self->api->publish(self->host, self->out_ping, &out);
    }
    /* Sends ping n once echo n-1 is back, and tells receive() it has sent it. */
    static void *run(void *argument) {
      pinger *self = argument;
      for (int n = 1; n <= 40; n++) {
        pthread_mutex_lock(&self->lock);
        while (self->echoes < n - 1 && !self->stopping) pthread_cond_wait(&self->changed, &self->lock);
        int stop = self->stopping;
        pthread_mutex_unlock(&self->lock);
        if (stop) break;
        ping(self, n);
        pthread_mutex_lock(&self->lock);
        self->pinged = n;
        pthread_cond_broadcast(&self->changed);
        pthread_mutex_unlock(&self->lock);
      }
      return NULL;
    }
    static pb_status pinger_create(const pb_create_args *args, void **out, pb_error *error) {
      (void)error;
      pinger *self = calloc(1, sizeof(pinger));
      self->api = args->api;
      self->host = args->host;
      pthread_mutex_init(&self->lock, NULL);
      pthread_cond_init(&self->changed, NULL);
      pb_port echo = {.size = sizeof(pb_port), .direction = PB_PORT_INPUT, .kind = PB_PORT_EVENT,
        .type = PB_VALUE_INTEGER, .name = "echo", .description = "a ping back"};
      pb_port pingport = {.size = sizeof(pb_port), .direction = PB_PORT_OUTPUT, .kind = PB_PORT_EVENT,
        .type = PB_VALUE_INTEGER, .name = "ping", .description = "the next ping"};
      if (self->api->add_port(self->host, &echo, &self->in_echo) != PB_OK ||
          self->api->add_port(self->host, &pingport, &self->out_ping) != PB_OK) return PB_ERR_INTERNAL;
      *out = self;
      return PB_OK;
    }
    static pb_status pinger_start(void *instance, pb_error *error) {
      (void)error;
      pinger *self = instance;
      pthread_create(&self->thread, NULL, run, self);
      return PB_OK;
    }
    /* Holds receive() until the thread has sent the next ping: that publish happens while an
     * input with hops is being received, on another thread. */
    static pb_status pinger_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)port; (void)value; (void)error;
      pinger *self = instance;
      pthread_mutex_lock(&self->lock);
      self->echoes++;
      int wanted = self->echoes + 1;
      pthread_cond_broadcast(&self->changed);
      while (wanted <= 40 && self->pinged < wanted && !self->stopping) pthread_cond_wait(&self->changed, &self->lock);
      pthread_mutex_unlock(&self->lock);
      return PB_OK;
    }
    static pb_status pinger_stop(void *instance, pb_error *error) {
      (void)error;
      pinger *self = instance;
      pthread_mutex_lock(&self->lock);
      self->stopping = 1;
      pthread_cond_broadcast(&self->changed);
      pthread_mutex_unlock(&self->lock);
      pthread_join(self->thread, NULL);
      return PB_OK;
    }
    static void pinger_destroy(void *instance) { free(instance); }
    static const pb_plugin_descriptor descriptor = {
      .size = sizeof(pb_plugin_descriptor), .abi_major = PB_ABI_MAJOR, .abi_minor = 0,
      .name = "pinger", .version = "1.0.0", .description = "pings from its own thread",
      .create = pinger_create, .start = pinger_start, .receive = pinger_receive, .stop = pinger_stop,
      .destroy = pinger_destroy,
    };
    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#

  static let echoerSource = #"""
    #include <patchbay/plugin.h>
    #include <stdlib.h>

    typedef struct echoer {
      const pb_host_api *api;
      pb_host *host;
      uint32_t in_value, out_echo;
    } echoer;

    static pb_status echoer_create(const pb_create_args *args, void **out, pb_error *error) {
      (void)error;
      echoer *self = calloc(1, sizeof(echoer));
      self->api = args->api;
      self->host = args->host;
      pb_port value = {.size = sizeof(pb_port), .direction = PB_PORT_INPUT, .kind = PB_PORT_EVENT,
        .type = PB_VALUE_INTEGER, .name = "value", .description = "a ping"};
      pb_port echo = {.size = sizeof(pb_port), .direction = PB_PORT_OUTPUT, .kind = PB_PORT_EVENT,
        .type = PB_VALUE_INTEGER, .name = "echo", .description = "the ping, back"};
      if (self->api->add_port(self->host, &value, &self->in_value) != PB_OK ||
          self->api->add_port(self->host, &echo, &self->out_echo) != PB_OK) return PB_ERR_INTERNAL;
      *out = self;
      return PB_OK;
    }
    static pb_status echoer_start(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static pb_status echoer_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)port; (void)error;
      echoer *self = instance;
      return self->api->publish(self->host, self->out_echo, value);
    }
    static pb_status echoer_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static void echoer_destroy(void *instance) { free(instance); }
    static const pb_plugin_descriptor descriptor = {
      .size = sizeof(pb_plugin_descriptor), .abi_major = PB_ABI_MAJOR, .abi_minor = 0,
      .name = "echoer", .version = "1.0.0", .description = "echoes what it receives",
      .create = echoer_create, .start = echoer_start, .receive = echoer_receive, .stop = echoer_stop,
      .destroy = echoer_destroy,
    };
    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#
}
