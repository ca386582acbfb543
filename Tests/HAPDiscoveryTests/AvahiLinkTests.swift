import Testing

@testable import HAPDiscovery

@Test func linksLibavahiClient() {
  #expect(!avahiErrorText(0).isEmpty)
}
