/// Why a frame from the other side was rejected. Every byte from the other side is untrusted:
/// these are errors to log and act on, never crashes.
public enum WireError: Error, Sendable, Equatable, CustomStringConvertible {
  case truncated(String)
  case oversized(Int)
  case unknownVersion(UInt8)
  case unknownMessage(UInt8)
  case invalid(String)

  public var description: String {
    switch self {
    case .truncated(let detail): "truncated frame: \(detail)"
    case .oversized(let size): "oversized frame: \(size) bytes (limit \(WireProtocol.maximumFrameBytes))"
    case .unknownVersion(let version):
      "unknown wire protocol version \(version) (this side speaks \(WireProtocol.version))"
    case .unknownMessage(let type): "unknown message type \(type)"
    case .invalid(let detail): "invalid frame: \(detail)"
    }
  }
}
