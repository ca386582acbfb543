import Foundation
import PatchbayTestSupport
import Testing

/// `patchbay check` on party-lights configs: mistakes named by file and key, a rate above the
/// driver's accepted.
@Suite(.serialized) struct PartyCheckTests {
  func check(_ party: String) throws -> (status: Int32, output: String, file: String) {
    try HubUnderTest.checkInstance("party", plugin: "party-lights", party)
  }

  @Test func aMisspeltKeyIsNamedWithTheFileAndASuggestion() throws {
    let result = try check("group = \"living\"\nstep_degree = 10\n")
    #expect(result.status != 0)
    #expect(result.output.contains(result.file))
    #expect(result.output.contains("instances.party"))
    #expect(result.output.contains("unknown key 'step_degree' (did you mean 'step_degrees'?)"), "\(result.output)")
  }

  @Test func aBadValueAndABadCombinationAreRefused() throws {
    let saturation = try check("group = \"living\"\nsaturation = 150\n")
    #expect(saturation.status != 0)
    #expect(saturation.output.contains("saturation must be between 0 and 100 %, not 150"), "\(saturation.output)")
    let spread = try check("group = \"living\"\nspread_degrees = 30\n")
    #expect(spread.status != 0)
    #expect(spread.output.contains("spread_degrees needs per-light targets"), "\(spread.output)")
  }

  @Test func aRateAboveTheDriversIsAccepted() throws {
    let result = try check("group = \"living\"\nbpm = 120\n")
    #expect(result.status == 0, "\(result.output)")
  }
}
