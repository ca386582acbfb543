import Foundation
import PatchbayTestSupport
import Testing

/// The descriptor's name is the plugin's name; the file name is only where it lives. A library
/// found as `myplugin` whose descriptor says `threshold` is refused by `check` and by the
/// running hub, and `plugins` shows both names.
@Suite(.serialized) struct PluginNameRuleTests {
  @Test func checkRunAndPluginsRefuseALibraryWhoseDescriptorNamesAnotherPlugin() throws {
    let harness = try HubUnderTest("patchbay-it")
    try harness.compileCPlugin(name: "myplugin", source: HubUnderTest.counterSource, descriptorName: "threshold")
    try harness.compileCPlugin(name: "counter", source: HubUnderTest.counterSource)
    try harness.writeConfig(
      HubTOML()
        .instance("counter", plugin: "counter"))
    let sensors = try harness.directory.write(
      "conf.d/30-sensors.toml",
      """
      [instances.porch]
      plugin = "myplugin"
      """)
    let library = harness.directory.path + "/plugins/myplugin.so"

    let check = try harness.cli("check")
    #expect(check.status == 1)
    let refusal =
      "instances.porch.plugin = \"myplugin\" finds \(library), but that library is plugin 'threshold'"
      + " (the name in its descriptor; the file name is only where a plugin lives)"
    #expect(check.output.contains("\(sensors): \(refusal)"), "\(check.output)")
    #expect(
      check.output.contains(
        #"Rename the file to threshold.so (packaged: libpatchbay-plugin-threshold.so) and set plugin = "threshold""#))
    #expect(check.output.contains("1 problem found"), "\(check.output)")

    let plugins = try harness.cli("plugins")
    #expect(plugins.output.contains("threshold 1.0.0 (ABI 1.0)"), "\(plugins.output)")
    #expect(plugins.output.contains("found as 'myplugin' but named 'threshold' in its descriptor"))
    #expect(plugins.output.contains("counter 1.0.0 (ABI 1.0)"))

    // The running hub refuses that instance only; the rest runs.
    try harness.start()
    let hub = harness.process!
    try hub.waitForLine(containing: refusal)
    try eventually("porch failed in status") {
      let status = try harness.cli("status").output
      return status.contains("porch") && status.contains("failed")
    }
    #expect(try harness.cli("send", "counter.increment", "trigger").status == 0)
    try harness.stop()

    // Either fix makes it a plugin again: here, the file renamed after its descriptor.
    try FileManager.default.moveItem(atPath: library, toPath: harness.directory.path + "/plugins/threshold.so")
    try harness.directory.write("conf.d/30-sensors.toml", "[instances.porch]\nplugin = \"threshold\"\n")
    let fixed = try harness.cli("check")
    #expect(fixed.status == 0, "\(fixed.output)")
    #expect(fixed.output.contains("OK (2 instances, 0 routes)"))
  }
}
