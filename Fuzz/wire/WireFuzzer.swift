// libFuzzer target for the hub <-> plugin-host frame decoders: any bytes must decode to a
// message or a WireError, never crash; decoded messages must re-encode to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let frame = Array(UnsafeBufferPointer(start: data, count: size))
  if let message = try? HostMessage.decode(frame) {
    precondition((try? HostMessage.decode(message.encode())) == message, "host message does not round-trip")
  }
  if let message = try? HubMessage.decode(frame) {
    precondition((try? HubMessage.decode(message.encode())) == message, "hub message does not round-trip")
  }
  return 0
}
