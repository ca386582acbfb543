import PatchbayValues

extension PacketSocket {
  /// `trySend` of `HubMessage.input(port:value:hops:)`, written straight into stack memory:
  /// the hop's send makes no message value and, being concrete in this module, calls nothing
  /// generic (the generic `withEncoded` looked up `Result` and `Slice` metadata on every hop,
  /// issue 44). The bytes are `HubMessage.encode`'s (`FrameEncodingInPlaceTests`).
  public func trySendInput(port: UInt32, value: Value, hops: UInt8) -> SendResult {
    FrameWriter.withFrame(
      { writer in
        writer.u8(WireProtocol.version)
        HubMessage.writeInput(port: port, value: value, hops: hops, to: &writer)
      }, { trySend($0) })
  }
}
