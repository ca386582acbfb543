/// Constants of the hub <-> plugin-host protocol.
///
/// Each SOCK_SEQPACKET message is one frame: `u8 version, u8 message type, u16 reserved (0)`,
/// then the message's fields, little-endian. The first message each way is `hello`.
/// Versions (hub and host are installed together; a frame of another version is refused):
/// - 1: the first.
/// - 2: `input` and `publish` carry a hop count (u8, after the port): how many routes the
///   value has passed through, so the hub can cut a loop through plugins (`maximumHops`).
public enum WireProtocol {
  public static let version: UInt8 = 2
  /// Most routes one value may pass through (a value routed round a loop through plugins that
  /// echo it); a value that has is dropped by the next route, which counts and logs it.
  public static let maximumHops: UInt8 = 16
  public static let headerBytes = 4
  /// Largest frame either side sends or accepts.
  public static let maximumFrameBytes = 64 * 1024
}
