import HAP

#if canImport(Glibc)
  import Glibc
#endif

// libFuzzer target for what a HomeKit controller (or anyone on the LAN) sends the accessory
// server: TLV8 pairing messages, HTTP requests, encrypted session frames; and for what an
// accessory sends our controller side: HTTP responses, EVENT messages and their JSON. Any
// bytes must decode or be refused, never crash; TLV8 that decodes must read back the same after
// encoding; the frame reader must open exactly what the frame writer sealed.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []

  if let items = try? TLV8.decode(bytes) {
    let separator = TLV8Tag.separator.rawValue
    let again = try? TLV8.decode(TLV8.encode(items))
    precondition(
      again?.filter { $0.tag != separator } == items.filter { $0.tag != separator }, "TLV8 does not round-trip")
  }

  if let requests = try? HTTPRequestParser.parse(bytes) {
    for request in requests {
      precondition(request.body.count <= HTTPRequestParser.maximumBodyLength, "body over the limit")
    }
  }
  // The same bytes fed in two pieces must give the same requests or the same failure.
  var parser = HTTPRequestParser()
  let half = bytes.count / 2
  let split = Result { try parser.append(Array(bytes[..<half])) + parser.append(Array(bytes[half...])) }
  let whole = Result { try HTTPRequestParser.parse(bytes) }
  switch (split, whole) {
  case (.success(let a), .success(let b)): precondition(a == b, "HTTP parse depends on how bytes arrive")
  case (.failure, .failure): break
  default: preconditionFailure("HTTP parse succeeds or fails depending on how bytes arrive")
  }

  // The controller side: what an accessory sends back (responses, EVENTs and their JSON).
  let responses = Result { try HTTPResponseParser.parse(bytes) }
  var responseParser = HTTPResponseParser()
  let splitResponses = Result {
    try responseParser.append(Array(bytes[..<half])) + responseParser.append(Array(bytes[half...]))
  }
  switch (splitResponses, responses) {
  case (.success(let a), .success(let b)): precondition(a == b, "HTTP response parse depends on how bytes arrive")
  case (.failure, .failure): break
  default: preconditionFailure("HTTP response parse succeeds or fails depending on how bytes arrive")
  }
  for response in (try? responses.get()) ?? [] where response.isEvent {
    _ = HAPCharacteristicValue.fromEvent(response.body)
  }
  _ = HAPCharacteristicValue.fromEvent(bytes)

  let key = [UInt8](repeating: 7, count: 32)
  var reader = HAPFrameCodec(key: key)
  var buffer = bytes
  _ = try? reader.open(&buffer)
  var writer = HAPFrameCodec(key: key)
  var sealed = writer.seal(bytes)
  var opener = HAPFrameCodec(key: key)
  precondition((try? opener.open(&sealed)) == bytes && sealed.isEmpty, "frames do not round-trip")
  return 0
}

// SwiftPM renames an executable's main, so this main hands control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { data, size in fuzzHAP(data, size) })
