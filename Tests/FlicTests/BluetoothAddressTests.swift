import FlicProtocol
import Testing

@Suite struct BluetoothAddressTests {
  @Test func parsesAndPrints() {
    #expect(BluetoothAddress("80:E4:DA:71:B6:8E")?.description == "80:e4:da:71:b6:8e")
    #expect(BluetoothAddress("08-09-0a-0b-0c-0d")?.description == "08:09:0a:0b:0c:0d")
    #expect(BluetoothAddress("08:09:0a:0b:0c:0d")?.wireBytes == hex("0d 0c 0b 0a 09 08"))
  }

  @Test(arguments: [
    "", "80:e4:da:71:b6", "80:e4:da:71:b6:8e:00", "80:e4:da:71:b6:zz", "80:e4:da:71:b6:8", "80::da:71:b6:8e",
  ])
  func refusesMalformedText(_ text: String) {
    #expect(BluetoothAddress(text) == nil)
  }
}
