import ChildProcesses
import Foundation

/// A callgrind output file read for three things: the total instruction count, the functions
/// with the most instructions of their own (self cost), and how often the C heap allocator
/// was called (`calls=` lines to malloc and its siblings: callgrind counts every call exactly). Read here rather than with
/// callgrind_annotate, which (3.19) puts a dump taken after `callgrind_control -z` entirely
/// under `clone`.
struct CallgrindProfile {
  /// The `totals:` line (instructions, Ir); nil while the file is not complete.
  let total: UInt64?
  /// Self cost per function, the largest first.
  let functions: [(name: String, instructions: UInt64)]
  /// Calls of malloc, calloc, realloc and the aligned allocators, from anywhere in the process
  /// (Swift's allocations all end there: swift_slowAlloc calls malloc or posix_memalign).
  let heapAllocations: UInt64

  /// The allocator's entry points, as callgrind names them (glibc exports some twice).
  static let allocators: Set<Substring> = [
    "malloc", "__libc_malloc", "calloc", "__libc_calloc", "realloc", "__libc_realloc", "posix_memalign",
    "aligned_alloc", "memalign", "__libc_memalign", "valloc", "pvalloc",
  ]

  init?(path: String) {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    var names: [Substring: Substring] = [:]
    var cost: [Substring: UInt64] = [:]
    var current: Substring = "?"
    var total: UInt64?
    // After `calls=`, the next cost line is the call's inclusive cost, not the caller's own.
    var inclusiveNext = false
    var called: Substring = "?"
    var allocations: UInt64 = 0
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
      if line.hasPrefix("fn=") || line.hasPrefix("cfn=") {
        // "fn=(ID) NAME" names ID the first time, "fn=(ID)" refers to it later.
        let body = line.drop { $0 != "=" }.dropFirst()
        var name = body
        if body.hasPrefix("("), let close = body.firstIndex(of: ")") {
          let id = body[...close]
          let rest = body[body.index(after: close)...].drop { $0 == " " }
          if !rest.isEmpty { names[id] = rest }
          name = names[id] ?? id
        }
        if line.hasPrefix("fn=") { current = name } else { called = name }
      } else if line.hasPrefix("calls=") {
        inclusiveNext = true
        if Self.allocators.contains(called.split(separator: "'").first ?? called),
          let count = line.dropFirst(6).split(separator: " ").first.flatMap({ UInt64($0) })
        {
          allocations += count
        }
      } else if line.hasPrefix("totals:") {
        total = line.split(separator: " ").dropFirst().first.flatMap { UInt64($0) }
      } else if let first = line.first, first.isNumber || first == "+" || first == "-" || first == "*" {
        if inclusiveNext {
          inclusiveNext = false
        } else if let value = line.split(separator: " ").last.flatMap({ UInt64($0) }) {
          cost[current, default: 0] += value
        }
      }
    }
    self.total = total
    heapAllocations = allocations
    functions = cost.sorted { $0.value > $1.value }.map { (String($0.key), $0.value) }
  }

  /// The top `count` functions with their share of the total in %, Swift names demangled.
  func top(_ count: Int) -> [(name: String, share: Double)] {
    let sum = Double(max(functions.reduce(0) { $0 + $1.instructions }, 1))
    return functions.prefix(count).map { (Self.demangle($0.name), 100 * Double($0.instructions) / sum) }
  }

  /// `swift-demangle --simplified --compact`, when the toolchain is at hand; else as it is.
  private static func demangle(_ symbol: String) -> String {
    guard symbol.hasPrefix("$s") else { return readable(symbol) }
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    guard
      let demangler = (paths + ["/opt/swift/usr/bin"]).map({ $0 + "/swift-demangle" }).first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
      }),
      let result = try? ChildProcess.runToEnd(demangler, ["--simplified", "--compact", symbol]), result.status == 0
    else { return String(symbol.prefix(100)) }
    return String(result.output.trimmingCharacters(in: .whitespacesAndNewlines).prefix(100))
  }

  /// A C or C++ name without template arguments, parameters and symbol version:
  /// "swift::RefCounts::doDecrementSlow", "pthread_mutex_lock".
  private static func readable(_ symbol: String) -> String {
    var depth = 0
    var name = ""
    for character in symbol.prefix(while: { $0 != "(" && $0 != "@" }) {
      if character == "<" {
        depth += 1
      } else if character == ">" {
        depth -= 1
      } else if depth == 0 {
        name.append(character)
      }
    }
    return String((name.split(separator: " ").last ?? Substring(name)).prefix(100))
  }
}
