import HAP
import Testing

@Test func statusCodesAreTheSpecsNumbers() {
  #expect(HAPStatus.invalidValue.rawValue == -70410)
  #expect(HAPStatus.resourceDoesNotExist.rawValue == -70409)
}
