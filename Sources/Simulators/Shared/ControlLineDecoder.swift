import NIOCore

/// Splits the stream into lines without their newline (and a `\r` before it); a line longer
/// than 64 KiB is an error that closes the connection.
struct ControlLineDecoder: ByteToMessageDecoder {
  typealias InboundOut = String
  static let maximumLength = 64 * 1024

  struct LineTooLong: Error {}

  mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
    guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
      if buffer.readableBytes > Self.maximumLength { throw LineTooLong() }
      return .needMoreData
    }
    let length = newline - buffer.readerIndex
    var line = buffer.readString(length: length) ?? ""
    buffer.moveReaderIndex(forwardBy: 1)
    if line.hasSuffix("\r") { line.removeLast() }
    context.fireChannelRead(NIOAny(line))
    return .continue
  }
}
