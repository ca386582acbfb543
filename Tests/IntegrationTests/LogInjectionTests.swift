import Foundation
import PatchbayTestSupport
import Testing

/// What a plugin writes to its log cannot forge a line of the hub's own, nor send a terminal
/// escape sequence into the log: control characters come out visibly escaped.
@Suite(.serialized) struct LogInjectionTests {
  /// A C plugin that logs, at start, a newline followed by a forged hub line, an ANSI colour
  /// escape, a carriage return, DEL and a C1 control (NEL, U+0085).
  static let forgerSource = #"""
    #include <patchbay/plugin.h>
    #include <stdlib.h>

    typedef struct forger { const pb_host_api *api; pb_host *host; } forger;

    static pb_status forger_create(const pb_create_args *args, void **out, pb_error *error) {
      (void)error;
      forger *self = calloc(1, sizeof(forger));
      self->api = args->api;
      self->host = args->host;
      *out = self;
      return PB_OK;
    }

    static pb_status forger_start(void *instance, pb_error *error) {
      (void)error;
      forger *self = instance;
      self->api->log(self->host, PB_LOG_WARNING,
        "innocent\n2099-01-01T00:00:00Z critical [hub] FORGED line\x1b[31mred\x1b[0m\rover\x7f" "del\xc2\x85nel end");
      return PB_OK;
    }

    static pb_status forger_receive(void *instance, uint32_t port, const pb_value *value, pb_error *error) {
      (void)instance; (void)port; (void)value; (void)error;
      return PB_OK;
    }
    static pb_status forger_stop(void *instance, pb_error *error) { (void)instance; (void)error; return PB_OK; }
    static void forger_destroy(void *instance) { free(instance); }

    static const pb_plugin_descriptor descriptor = {
      .size = sizeof(pb_plugin_descriptor),
      .abi_major = PB_ABI_MAJOR,
      .abi_minor = PB_ABI_MINOR,
      .name = "forger",
      .version = "0.0.1",
      .description = "logs control characters",
      .create = forger_create,
      .start = forger_start,
      .receive = forger_receive,
      .stop = forger_stop,
      .destroy = forger_destroy,
    };

    __attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
      return &descriptor;
    }
    """#

  @Test func aPluginsLogTextIsOneLineWithItsControlCharactersEscaped() throws {
    let harness = try HubUnderTest("patchbay-log-injection")
    try harness.compileCPlugin(name: "forger", source: Self.forgerSource)
    try harness.writeConfig(
      HubTOML()
        .instance("liar", plugin: "forger"))
    try harness.start()
    let hub = harness.process!
    try hub.waitForLine(containing: "FORGED", within: 60)
    let lines = hub.lines
    // No line begins with the forged timestamp: the text stayed on the plugin's own line.
    #expect(!lines.contains { $0.hasPrefix("2099-01-01") }, "\(lines.filter { $0.contains("FORGED") })")
    let line = lines.first { $0.contains("FORGED") } ?? ""
    #expect(line.contains("[liar] innocent\\n2099-01-01T00:00:00Z critical [hub] FORGED line"), "\(line)")
    #expect(line.contains("\\x1b[31mred\\x1b[0m\\rover\\x7fdel\\u{85}nel end"), "\(line)")
    // Not one raw control character in anything the hub wrote.
    #expect(
      !hub.output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x7F || $0.value == 0x85 || $0 == "\r" })
    // The control socket's `log` (the dashboard's) has it escaped too.
    let log = try harness.request(["command": "log", "instance": "liar"])
    let messages = (log["log"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    #expect(messages.contains { $0.contains("innocent\\n2099") && !$0.contains("\n") }, "\(messages)")
    try harness.stop()
  }
}
