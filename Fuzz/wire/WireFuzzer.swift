// libFuzzer target for the hub <-> plugin-host frame decoders: any bytes must decode to a
// message or a WireError, never crash; decoded messages must re-encode to the same bytes.
// The same bytes as text go through the plugin host's JSON reader (each instance's config):
// it must answer or refuse, never crash, and what it reads must read back the same. A frame
// encoded into temporary memory (the hub's hot path) must be the same bytes as the array.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let frame = Array(UnsafeBufferPointer(start: data, count: size))
  if let message = try? HostMessage.decode(frame) {
    precondition((try? HostMessage.decode(message.encode())) == message, "host message does not round-trip")
    precondition(message.withEncoded { Array($0) } == message.encode(), "host message encodes two ways")
  }
  if let message = try? HubMessage.decode(frame) {
    precondition((try? HubMessage.decode(message.encode())) == message, "hub message does not round-trip")
    precondition(message.withEncoded { Array($0) } == message.encode(), "hub message encodes two ways")
    HubMessage.withEncoded([message, .start, message]) { joined, lengths in
      precondition(Array(joined) == message.encode() + HubMessage.start.encode() + message.encode(), "batch encoding")
      precondition(Array(lengths) == [message.encode().count, 4, message.encode().count], "batch lengths")
    }
  }
  let text = String(decoding: frame, as: UTF8.self)
  if let json = JSONValue.parse(text) {
    precondition(JSONValue.parse(json.description) == json, "JSON does not round-trip: \(json.description)")
  }
  return 0
}
