import HAPDiscovery
import Testing

@Suite struct TXTRecordTests {
  @Test func holdsTheReferenceKeysInOrder() {
    let record = HAPTXTRecord(
      configurationNumber: 3, deviceID: "AA:BB:CC:DD:EE:FF", model: "Bridge", discoverable: false, category: 2,
      setupHash: "AbCd")
    #expect(
      record.strings == [
        "c#=3", "ff=0", "id=AA:BB:CC:DD:EE:FF", "md=Bridge", "pv=1.1", "s#=1", "sf=0", "ci=2", "sh=AbCd",
      ])
  }

  @Test func keepsTheConfigurationNumberWithin1To65535() {
    var record = HAPTXTRecord(deviceID: "AA:BB:CC:DD:EE:FF", model: "m", setupHash: "x")
    record.configurationNumber = 65535
    #expect(record.pairs[0].value == "65535")
    record.configurationNumber = 65536
    #expect(record.pairs[0].value == "1")
    record.configurationNumber = 0
    #expect(record.pairs[0].value == "1")
  }

  @Test func aLongNameIsCutToOneDNSLabelAtACharacterBoundary() {
    // "é" is 2 bytes of UTF-8: 31 of them fit in 63 bytes.
    #expect(HAPAdvertiser.instanceLabel(String(repeating: "é", count: 40)) == String(repeating: "é", count: 31))
    #expect(HAPAdvertiser.instanceLabel("Living Room") == "Living Room")
    let log = CollectedLog()
    let advertiser = HAPAdvertiser(
      name: String(repeating: "x", count: 70), port: 1,
      txt: HAPTXTRecord(deviceID: "AA:BB:CC:DD:EE:FF", model: "m", setupHash: "x"), logger: log.logger)
    #expect(advertiser.state == .stopped)
    #expect(log.count(containing: "is longer than 63 bytes; advertising '\(String(repeating: "x", count: 63))'") == 1)
  }
}
