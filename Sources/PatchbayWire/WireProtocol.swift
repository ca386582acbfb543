/// Constants of the hub <-> plugin-host protocol.
///
/// Each SOCK_SEQPACKET message is one frame: `u8 version, u8 message type, u16 reserved (0)`,
/// then the message's fields, little-endian. The first message each way is `hello`.
public enum WireProtocol {
  public static let version: UInt8 = 1
  public static let headerBytes = 4
  /// Largest frame either side sends or accepts.
  public static let maximumFrameBytes = 64 * 1024
}
