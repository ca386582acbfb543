import Foundation
import HAP
import PatchbayTestSupport
import Testing

@Suite struct SetupCodeTests {
  @Test func forbiddenAndMalformedCodesAreRefused() {
    for digit in 0...9 {
      let d = String(digit)
      let text = "\(d)\(d)\(d)-\(d)\(d)-\(d)\(d)\(d)"
      #expect(HAPSetupCode(text) == nil, "\(text)")
      #expect(HAPSetupCode.validationProblem(text)?.contains("forbidden") == true)
    }
    #expect(HAPSetupCode("123-45-678") == nil)
    #expect(HAPSetupCode("876-54-321") == nil)
    for malformed in ["12345678", "123-456-78", "12a-45-678", "", "123-45-6789", "１２３-45-679"] {
      #expect(HAPSetupCode(malformed) == nil, "\(malformed)")
      #expect(HAPSetupCode.validationProblem(malformed)?.contains("XXX-XX-XXX") == true)
    }
    #expect(HAPSetupCode("518-08-582")?.description == "518-08-582")
    #expect(HAPSetupCode.validationProblem("123-45-679") == nil)
  }

  @Test func generatedCodesAreValid() {
    for _ in 0..<200 {
      let code = HAPSetupCode.generate()
      #expect(HAPSetupCode.validationProblem(code.description) == nil)
    }
    let setupID = hapGenerateSetupID()
    #expect(setupID.count == 4 && setupID.allSatisfy { $0.isNumber || ("A"..."Z").contains($0) })
  }

  /// The QR payload and setup hash as HAP-python (from PyPI) computes them.
  @Test func setupURIAndHashMatchHAPPython() async throws {
    let python = try await offPool { try PythonEnvironment.prepared(["HAP-python[QRCode]==5.0.0"]) }
    let script = """
      import sys
      from pyhap.accessory import Accessory
      from pyhap.accessory_driver import AccessoryMDNSServiceInfo
      from unittest import mock
      code, setup_id, category, device_id = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
      # xhm_uri() reads the pincode, setup id and category from the driver and accessory.
      acc = Accessory.__new__(Accessory)
      acc.category = category
      acc.driver = mock.Mock()
      acc.driver.state.pincode = code.encode()
      acc.driver.state.setup_id = setup_id
      print(acc.xhm_uri())
      driver = mock.Mock()
      driver.state.setup_id = setup_id
      driver.state.mac = device_id
      print(AccessoryMDNSServiceInfo._setup_hash(driver))
      """
    let deviceID = "12:34:56:78:9A:BC"
    for (code, setupID, category) in [
      ("518-08-582", "1QJ8", HAPCategory.bridge), ("031-45-154", "ZZ00", .lightbulb),
      ("999-99-998", "A0B1", .programmableSwitch),
    ] {
      let arguments = [code, setupID, String(category.rawValue), deviceID]
      let result = try await offPool { try python.run(script: script, arguments) }
      #expect(result.status == 0, "\(result.output)")
      let lines = result.output.split(separator: "\n").map(String.init)
      let uri = hapSetupURI(code: HAPSetupCode(code)!, setupID: setupID, category: category)
      #expect(lines.first == uri)
      #expect(lines.last == hapSetupHash(setupID: setupID, deviceID: deviceID))
      print("\(code) \(setupID) \(category): \(uri) (HAP-python: \(lines.first ?? "-"))")
    }
  }
}
