import FlicProtocol

// libFuzzer entry point for the flicd packet decoder. Not part of `swift build`: it needs
// `-sanitize=fuzzer`; build and run it with `Plugins/flic/Fuzz/run-fuzz`.
//
// The input is treated as a TCP stream from a peer: framed, then every packet decoded as an
// event (what the plugin and CLI read) and as a command (what the simulator reads). Decoding
// must throw or succeed, never trap; a decoded packet must encode to bytes that decode again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPacketDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  _ = try? EventPacket.decode(bytes)
  _ = try? CommandPacket.decode(bytes)

  var framer = PacketFramer(maximumLength: 4096)
  framer.append(bytes)
  while true {
    let packet: [UInt8]
    do {
      guard let next = try framer.nextPacket() else { break }
      packet = next
    } catch {
      break
    }
    if let event = try? EventPacket.decode(packet) {
      let again = event.encoded()
      if (try? EventPacket.decode(Array(again.dropFirst(2)))) == nil {
        fatalError("re-encoded event does not decode: \(event)")
      }
    }
    if let command = try? CommandPacket.decode(packet) {
      let again = command.encoded()
      if (try? CommandPacket.decode(Array(again.dropFirst(2)))) != command {
        fatalError("command does not round-trip: \(command)")
      }
    }
  }
  return 0
}
