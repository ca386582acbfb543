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
}
