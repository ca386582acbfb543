import Foundation
import PatchbayTestSupport
import Testing

extension AvahiInProcessTests {
  /// The in-process tests set DBUS_SYSTEM_BUS_ADDRESS for the whole test process; a hub that
  /// another test starts meanwhile must not inherit it, or its HomeKit bridge shows up on this
  /// test's private avahi-daemon (seen: `avahi-browse -rpt` then hung resolving a bridge whose
  /// hub had just stopped, and AdvertiserTests failed).
  @Suite struct HubBusIsolationTests {
    @Test func aHubStartedByATestDoesNotUseTheInProcessTestsBus() throws {
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      let hub = try HubUnderTest("patchbay-bus", plugins: ["homekit"])
      try hub.writeConfig(
        HubTOML()
          .instance("homekit", plugin: "homekit", ["name": "Stray Bridge"])
          .arrayTable("instances.homekit.accessories", ["name": "Lamp", "service": "switch"]))
      try hub.start()
      try hub.waitUntilRunning("homekit")
      try eventually("the bridge's mDNS state in the log:\n\(hub.log)") {
        hub.log.contains("no mDNS responder") || hub.log.contains("advertising 'Stray Bridge'")
      }
      #expect(!hub.log.contains("advertising 'Stray Bridge'"), "\(hub.log)")
      #expect(try !avahi.browse().contains { $0.name == "Stray Bridge" })
      try hub.stop()
    }
  }
}
