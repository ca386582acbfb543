/// Writes little-endian fields of a frame. A message's encoding runs twice through the same
/// code: once only counting (no memory), once writing into memory of exactly that size, so a
/// frame never grows an array: on the hot path (`withFrame`) the memory is on the stack, and a
/// hop costs no heap allocation for its frame (issue 44).
public struct FrameWriter {
  /// nil while counting.
  private let buffer: UnsafeMutableRawBufferPointer?
  /// Bytes written (or counted) so far.
  public private(set) var count = 0

  private init(buffer: UnsafeMutableRawBufferPointer?) { self.buffer = buffer }

  @inline(__always)
  private mutating func integer<T: FixedWidthInteger>(_ value: T) {
    let size = MemoryLayout<T>.size
    if let buffer {
      precondition(count + size <= buffer.count, "FrameWriter: the frame outgrew its counted size")
      buffer.storeBytes(of: value.littleEndian, toByteOffset: count, as: T.self)
    }
    count += size
  }

  public mutating func u8(_ value: UInt8) { integer(value) }
  public mutating func u16(_ value: UInt16) { integer(value) }
  public mutating func u32(_ value: UInt32) { integer(value) }
  public mutating func u64(_ value: UInt64) { integer(value) }
  public mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
  public mutating func f64(_ value: Double) { u64(value.bitPattern) }
  public mutating func bool(_ value: Bool) { u8(value ? 1 : 0) }
  /// A u32 length, then UTF-8 bytes.
  public mutating func string(_ value: String) {
    let utf8 = value.utf8
    u32(UInt32(utf8.count))
    if let buffer {
      precondition(count + utf8.count <= buffer.count, "FrameWriter: the frame outgrew its counted size")
      let start = count
      let copied: Void? = utf8.withContiguousStorageIfAvailable { bytes in
        UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + bytes.count]).copyMemory(
          from: UnsafeRawBufferPointer(bytes))
      }
      if copied == nil {
        for (offset, byte) in utf8.enumerated() { buffer[start + offset] = byte }
      }
    }
    count += utf8.count
  }

  /// The frame `write` writes, as an array (messages off the hot path, tests).
  public static func frame(_ write: (inout FrameWriter) -> Void) -> [UInt8] {
    var counter = FrameWriter(buffer: nil)
    write(&counter)
    return [UInt8](unsafeUninitializedCapacity: counter.count) { memory, initialized in
      var writer = FrameWriter(buffer: UnsafeMutableRawBufferPointer(memory))
      write(&writer)
      initialized = writer.count
    }
  }

  /// Calls `body` with the frame `write` writes, in temporary memory: on the stack for any
  /// frame that fits there (`withUnsafeTemporaryAllocation`), so no heap allocation.
  public static func withFrame<Result>(
    _ write: (inout FrameWriter) -> Void, _ body: (UnsafeRawBufferPointer) -> Result
  ) -> Result {
    var counter = FrameWriter(buffer: nil)
    write(&counter)
    return withUnsafeTemporaryAllocation(byteCount: counter.count, alignment: 8) { memory in
      var writer = FrameWriter(buffer: memory)
      write(&writer)
      return body(UnsafeRawBufferPointer(rebasing: memory[0..<writer.count]))
    }
  }

  /// Calls `body` with several frames written one after the other in temporary memory, and
  /// their lengths (what `sendmmsg` takes): one stack allocation for a batch of inputs.
  public static func withFrames<Result>(
    count frames: Int, _ write: (Int, inout FrameWriter) -> Void,
    _ body: (UnsafeRawBufferPointer, UnsafeBufferPointer<Int>) -> Result
  ) -> Result {
    withUnsafeTemporaryAllocation(of: Int.self, capacity: frames) { lengths in
      var total = 0
      for index in 0..<frames {
        var counter = FrameWriter(buffer: nil)
        write(index, &counter)
        lengths.initializeElement(at: index, to: counter.count)
        total += counter.count
      }
      return withUnsafeTemporaryAllocation(byteCount: total, alignment: 8) { memory in
        var offset = 0
        for index in 0..<frames {
          var writer = FrameWriter(
            buffer: UnsafeMutableRawBufferPointer(rebasing: memory[offset..<offset + lengths[index]]))
          write(index, &writer)
          offset += writer.count
        }
        return body(UnsafeRawBufferPointer(memory), UnsafeBufferPointer(lengths))
      }
    }
  }
}

/// Reads little-endian fields from an untrusted frame; every read is bounds-checked. It reads
/// the received bytes where they are (no copy into an array): it must not outlive them.
public struct FrameReader {
  let bytes: UnsafeRawBufferPointer
  public private(set) var offset: Int

  public init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  public var remaining: Int { bytes.count - offset }

  // Inlined, with the error's text made out of line: each field of a hop's frame passes
  // here (a call per field was about 4 % of a hop's instructions, issue 44).
  @inline(__always)
  mutating func take(_ count: Int) throws(WireError) -> UnsafeRawBufferPointer {
    guard count >= 0, count <= remaining else { throw truncated(needing: count) }
    let start = offset
    offset += count
    return UnsafeRawBufferPointer(rebasing: bytes[start..<start + count])
  }

  @inline(never)
  private func truncated(needing count: Int) -> WireError {
    .truncated("needs \(count) more bytes at offset \(offset), has \(remaining)")
  }

  @inline(__always)
  mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(WireError) -> T {
    let size = MemoryLayout<T>.size
    guard size <= remaining else { throw truncated(needing: size) }
    defer { offset += size }
    return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
  }

  public mutating func u8() throws(WireError) -> UInt8 { try integer(UInt8.self) }
  public mutating func u16() throws(WireError) -> UInt16 { try integer(UInt16.self) }
  public mutating func u32() throws(WireError) -> UInt32 { try integer(UInt32.self) }
  public mutating func u64() throws(WireError) -> UInt64 { try integer(UInt64.self) }
  public mutating func i64() throws(WireError) -> Int64 { Int64(bitPattern: try u64()) }
  public mutating func f64() throws(WireError) -> Double { Double(bitPattern: try u64()) }
  public mutating func bool() throws(WireError) -> Bool {
    let byte = try u8()
    guard byte <= 1 else { throw .invalid("boolean byte \(byte)") }
    return byte == 1
  }
  public mutating func string(maxBytes: Int = WireProtocol.maximumFrameBytes) throws(WireError) -> String {
    let count = Int(try u32())
    guard count <= maxBytes else { throw .invalid("string of \(count) bytes exceeds \(maxBytes)") }
    let slice = try take(count)
    guard let text = String(validating: slice.assumingMemoryBound(to: UInt8.self), as: UTF8.self) else {
      throw .invalid("string is not UTF-8")
    }
    return text
  }
  /// Throws unless the whole frame was read.
  public func expectEnd() throws(WireError) {
    guard remaining == 0 else { throw .invalid("\(remaining) unexpected trailing bytes") }
  }
}
