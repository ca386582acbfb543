import HAPDiscovery
import PatchbayTestSupport
import Testing

extension AvahiInProcessTests {
  /// HAPBrowser against a real avahi-daemon: what `avahi-publish` and HAPAdvertiser announce.
  @Suite struct BrowserTests {
    @Test func findsAServicePublishedWithAvahiPublishAndSeesItGo() async throws {
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      let browser = HAPBrowser(logger: CollectedLog().logger)
      defer { browser.stop() }
      let events = browser.events
      browser.start()
      let lamp = try avahi.publish(
        name: "Desk Lamp", port: 51900, txt: ["c#=4", "id=AA:BB:CC:DD:EE:01", "md=Lamp", "sf=0", "ci=5"])
      try eventually("the browser finds Desk Lamp; has \(browser.services)") { browser.services["Desk Lamp"] != nil }
      let service = try #require(browser.services["Desk Lamp"])
      #expect(service.port == 51900)
      #expect(service.address == avahi.responderAddress)
      #expect(service.host == avahi.hostName + ".local")
      #expect(service.txt == ["c#": "4", "id": "AA:BB:CC:DD:EE:01", "md": "Lamp", "sf": "0", "ci": "5"])

      _ = try lamp.terminate()
      try eventually("Desk Lamp leaves the browser's list") { browser.services["Desk Lamp"] == nil }
      // The same story as events; stopping the browser ends the stream.
      browser.stop()
      var seen: [HAPBrowser.Event] = []
      for await event in events { seen.append(event) }
      #expect(seen == [.found(service), .removed(name: "Desk Lamp")])
    }

    @Test func followsTheTXTRecordOfAnAdvertisedBridge() throws {
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      let browser = HAPBrowser(logger: CollectedLog().logger)
      defer { browser.stop() }
      browser.start()
      var txt = HAPTXTRecord(deviceID: "1A:2B:3C:4D:5E:70", model: "m", setupHash: "c2g=")
      let advertiser = HAPAdvertiser(name: "Bridge", port: 51901, txt: txt, logger: CollectedLog().logger)
      defer { advertiser.stop() }
      advertiser.start()
      try eventually("the browser finds Bridge with sf=1") { browser.services["Bridge"]?.txt["sf"] == "1" }
      txt.discoverable = false
      txt.configurationNumber = 7
      advertiser.update(txt: txt)
      try eventually("the browser sees sf=0 c#=7; has \(String(describing: browser.services["Bridge"]))") {
        browser.services["Bridge"]?.txt["sf"] == "0" && browser.services["Bridge"]?.txt["c#"] == "7"
      }
      _ = avahi
    }
  }
}
