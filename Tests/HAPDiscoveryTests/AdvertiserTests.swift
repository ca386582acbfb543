import HAPDiscovery
import Logging
import PatchbayTestSupport
import Testing

extension AvahiInProcessTests {
  /// HAPAdvertiser against a real avahi-daemon (on a D-Bus bus and in network namespaces of the
  /// test's own), seen by `avahi-browse` and by aiohomekit, Home Assistant's HomeKit controller.
  @Suite struct AdvertiserTests {
    static let waitingLine = "no mDNS responder: install and start avahi-daemon (apt install avahi-daemon)"

    func record(sf discoverable: Bool = true, c configurationNumber: Int = 1) -> HAPTXTRecord {
      HAPTXTRecord(
        configurationNumber: configurationNumber, deviceID: "1A:2B:3C:4D:5E:6F", model: "patchbay bridge",
        discoverable: discoverable, category: 2, setupHash: "aGVsbG8=")
    }

    func waitForState(_ advertiser: HAPAdvertiser, _ expected: HAPAdvertiser.State, within seconds: Double = 60) throws
    {
      try eventually("state \(expected), is \(advertiser.state)", within: seconds) { advertiser.state == expected }
    }

    @Test func advertisesTheTXTRecordSeenByAvahiBrowse() throws {
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      let log = CollectedLog()
      let advertiser = HAPAdvertiser(name: "Patchbay Test", port: 51826, txt: record(), logger: log.logger)
      defer { advertiser.stop() }
      advertiser.start()
      try waitForState(advertiser, .advertising("Patchbay Test"))
      var seen: [AvahiUnderTest.BrowsedService] = []
      try eventually("avahi-browse shows the bridge; saw \(seen)") {
        seen = try avahi.browse().filter { $0.name == "Patchbay Test" }
        return !seen.isEmpty
      }
      let service = try #require(seen.first)
      #expect(service.port == 51826)
      #expect(service.address == avahi.responderAddress)
      #expect(
        service.txt == [
          "c#": "1", "ff": "0", "id": "1A:2B:3C:4D:5E:6F", "md": "patchbay bridge", "pv": "1.1", "s#": "1", "sf": "1",
          "ci": "2", "sh": "aGVsbG8=",
        ])
      #expect(log.count(containing: "advertising 'Patchbay Test'") == 1)
      #expect(log.count(containing: "no mDNS responder") == 0)
    }

    @Test func aiohomekitFindsTheBridgeUnpairedThenPaired() throws {
      let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      let advertiser = HAPAdvertiser(name: "Patchbay Test", port: 51826, txt: record(), logger: CollectedLog().logger)
      defer { advertiser.stop() }
      advertiser.start()
      try waitForState(advertiser, .advertising("Patchbay Test"))

      let unpaired = try avahi.discoverWithAiohomekit(
        python, deviceID: "1A:2B:3C:4D:5E:6F", statusFlags: 1, configurationNumber: 1)
      #expect(unpaired.found, "aiohomekit did not find the unpaired bridge:\n\(unpaired.output)")
      #expect(unpaired.last?.name == "Patchbay Test")
      #expect(unpaired.last?.address == avahi.responderAddress)
      #expect(unpaired.last?.port == 51826)
      #expect(unpaired.last?.ci == 2)
      #expect(unpaired.last?.md == "patchbay bridge")

      // Pairing flips sf to 0; a changed accessory database bumps c#.
      advertiser.update(txt: record(sf: false, c: 2))
      let paired = try avahi.discoverWithAiohomekit(
        python, deviceID: "1A:2B:3C:4D:5E:6F", statusFlags: 0, configurationNumber: 2)
      #expect(paired.found, "aiohomekit did not see sf=0, c#=2:\n\(paired.output)")
      try eventually("avahi-browse shows sf=0 c#=2") {
        try avahi.browse().contains { $0.name == "Patchbay Test" && $0.txt["sf"] == "0" && $0.txt["c#"] == "2" }
      }
      #expect(advertiser.state == .advertising("Patchbay Test"))
    }

    @Test func waitsForAMissingResponderThenRegistersByItself() throws {
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket, startResponder: false)
      let log = CollectedLog()
      let advertiser = HAPAdvertiser(name: "Patchbay Test", port: 51826, txt: record(), logger: log.logger)
      defer { advertiser.stop() }
      advertiser.start()
      try eventually("waiting for a responder, is \(advertiser.state)") {
        if case .waitingForResponder = advertiser.state { return true }
        return false
      }
      #expect(log.count(containing: Self.waitingLine) == 1)
      // A record changed while waiting is the one registered.
      advertiser.update(txt: record(c: 5))

      try avahi.startResponder()
      try waitForState(advertiser, .advertising("Patchbay Test"))
      try eventually("avahi-browse shows the bridge with c#=5") {
        try avahi.browse().contains { $0.name == "Patchbay Test" && $0.txt["c#"] == "5" }
      }
      // One line for the whole wait, however long it was.
      #expect(log.count(containing: Self.waitingLine) == 1)
    }

    @Test func registersAgainAfterTheDaemonRestarts() async throws {
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      let advertiser = HAPAdvertiser(name: "Patchbay Test", port: 51826, txt: record(), logger: CollectedLog().logger)
      defer { advertiser.stop() }
      let changes = advertiser.stateChanges
      advertiser.start()
      try waitForState(advertiser, .advertising("Patchbay Test"))

      try avahi.stopResponder()
      try eventually("waiting for a responder, is \(advertiser.state)") {
        if case .waitingForResponder = advertiser.state { return true }
        return false
      }
      try avahi.startResponder()
      try waitForState(advertiser, .advertising("Patchbay Test"))
      try eventually("avahi-browse shows the bridge after the restart") {
        try avahi.browse().contains { $0.name == "Patchbay Test" }
      }
      // The same story as state changes, for a status line; stopping ends the stream.
      advertiser.stop()
      var seen: [HAPAdvertiser.State] = []
      for await state in changes { seen.append(state) }
      #expect(seen.first == .stopped)
      #expect(seen.last == .stopped)
      let advertised = seen.indices.filter { seen[$0] == .advertising("Patchbay Test") }
      try #require(advertised.count == 2, "\(seen)")
      #expect(
        seen[advertised[0]..<advertised[1]].contains {
          if case .waitingForResponder = $0 { return true }
          return false
        }, "\(seen)")
    }

    @Test func registersAgainAfterTheBusRestarts() throws {
      // Avahi's NO_FAIL does not survive a D-Bus restart by itself: the advertiser connects anew.
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      let advertiser = HAPAdvertiser(name: "Patchbay Test", port: 51826, txt: record(), logger: CollectedLog().logger)
      defer { advertiser.stop() }
      advertiser.start()
      try waitForState(advertiser, .advertising("Patchbay Test"))
      try avahi.restartBus()
      try eventually("avahi-browse shows the bridge after the bus restart; state \(advertiser.state)") {
        try avahi.browse().contains { $0.name == "Patchbay Test" }
      }
      #expect(advertiser.state == .advertising("Patchbay Test"))
    }

    @Test func waitsForAMissingBusThenRegisters() throws {
      // No dbus-daemon yet at the bus address: libavahi-client cannot even connect (NO_FAIL does
      // not cover that); the advertiser watches the socket's folder.
      let log = CollectedLog()
      let advertiser = HAPAdvertiser(name: "Patchbay Test", port: 51826, txt: record(), logger: log.logger)
      defer { advertiser.stop() }
      _ = AvahiUnderTest.inProcessBusSocket
      advertiser.start()
      try eventually("waiting for a responder, is \(advertiser.state)") {
        if case .waitingForResponder(let reason) = advertiser.state { return reason.contains("no D-Bus system bus") }
        return false
      }
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      try waitForState(advertiser, .advertising("Patchbay Test"))
      try eventually("avahi-browse shows the bridge") { try avahi.browse().contains { $0.name == "Patchbay Test" } }
      #expect(log.count(containing: Self.waitingLine) == 1)
    }

    @Test func aNameTakenOnThisHostIsReplacedByAvahisAlternative() throws {
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      let other = try avahi.publish(name: "Patchbay Test", port: 40000, txt: ["id=00:00:00:00:00:01"])
      defer { _ = try? other.terminate() }
      let log = CollectedLog()
      let advertiser = HAPAdvertiser(name: "Patchbay Test", port: 51826, txt: record(), logger: log.logger)
      defer { advertiser.stop() }
      advertiser.start()
      try waitForState(advertiser, .advertising("Patchbay Test #2"))
      #expect(
        log.count(containing: "the name 'Patchbay Test' is taken on the network; advertising as 'Patchbay Test #2'")
          == 1)
      try eventually("avahi-browse shows both") {
        let names = Set(try avahi.browse().map(\.name))
        return names.isSuperset(of: ["Patchbay Test", "Patchbay Test #2"])
      }
    }

    @Test func aNameTakenByAnotherHostIsReplacedByAvahisAlternative() throws {
      let python = try PythonEnvironment.prepared(PythonEnvironment.aiohomekit)
      let avahi = try AvahiUnderTest(busSocket: AvahiUnderTest.inProcessBusSocket)
      // Another accessory on the link (python-zeroconf in the peer namespace) holds the name.
      let (executable, arguments) = avahi.inPeerNamespace(
        python.python, ["-c", Self.otherAccessory, "Patchbay Test", avahi.peerAddress])
      let other = try ChildProcess(executable, arguments, keepInputOpen: true)
      defer { _ = try? other.terminate() }
      try other.waitForLine(containing: "registered", within: 60)
      let log = CollectedLog()
      let advertiser = HAPAdvertiser(name: "Patchbay Test", port: 51826, txt: record(), logger: log.logger)
      defer { advertiser.stop() }
      advertiser.start()
      try waitForState(advertiser, .advertising("Patchbay Test #2"))
      #expect(
        log.count(containing: "the name 'Patchbay Test' is taken on the network; advertising as 'Patchbay Test #2'")
          == 1)
    }

    /// Registers `_hap._tcp` NAME at ADDRESS with python-zeroconf and holds it until stdin ends.
    static let otherAccessory = """
      import socket, sys
      from zeroconf import ServiceInfo, Zeroconf
      name, address = sys.argv[1], sys.argv[2]
      zc = Zeroconf(interfaces=[address])
      info = ServiceInfo("_hap._tcp.local.", name + "._hap._tcp.local.", port=40001,
                         addresses=[socket.inet_aton(address)], server="other-host.local.",
                         properties={"id": "00:11:22:33:44:55", "sf": "1", "c#": "1"})
      zc.register_service(info)
      print("registered", flush=True)
      sys.stdin.read()
      zc.unregister_service(info)
      zc.close()
      """
  }
}
