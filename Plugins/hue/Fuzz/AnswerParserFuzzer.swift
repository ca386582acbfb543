// libFuzzer target for the bridge-answer parser (HueAnswerParser): any bytes from a bridge
// must become results or a HueParseError, never a crash; whatever is read must read the
// same again after writing it back (results) or converting it back (lights).
// Built and run by run-fuzz next to this file, outside `swift build`.
import Foundation
import PatchbayValues

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBridgeAnswer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Data(UnsafeBufferPointer(start: data, count: size))
  if let results = try? HueAnswerParser.results(bytes) {
    // Compared as text: 200 and 200.0 are one number to a bridge.
    let again = try? HueAnswerParser.results(Data(results.json.text.utf8))
    precondition(again?.json.text == results.json.text, "results do not survive a round trip: \(results)")
  }
  if let lights = try? HueAnswerParser.lights(bytes) {
    for (id, light) in lights {
      precondition(HueAnswerParser.light(light.json) == light, "light \(id) does not survive a round trip: \(light)")
    }
  }
  _ = try? HueAnswerParser.groups(bytes)
  return 0
}
