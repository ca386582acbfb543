import CProcessControl
import Dispatch
import PatchbayValues
import PatchbayWire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `patchbay-plugin-host --conformance STAGE LIBRARY CONFIG_JSON STATE_DIRECTORY OBSERVE_MS`,
/// started by `patchbay plugin test` with its report pipe as fd 3. This process plays the
/// hub's part itself, through the same runtime and socket messages a hub would use, and
/// reports to the checker (see `ConformanceObserver`).
///
/// Stages: `lifecycle` runs create, start, one input per input port, stop and destroy;
/// `create` only creates and destroys (the checker's config variants).
enum ConformanceRun {
  static func main(_ arguments: [String]) -> Never {
    guard arguments.count >= 5, ["lifecycle", "create"].contains(arguments[0]), let observeMs = Int(arguments[4]),
      fcntl(ReportChannel.descriptor, F_GETFD) != -1
    else {
      let text =
        "usage: patchbay-plugin-host --conformance lifecycle|create LIBRARY CONFIG_JSON STATE_DIRECTORY"
        + " OBSERVE_MS, with the report pipe as fd 3; `patchbay plugin test` runs it\n"
      _ = text.withCString { write(2, $0, strlen($0)) }
      hostExit(.usage)
    }
    let (stage, path, configJSON, stateDirectory) = (arguments[0], arguments[1], arguments[2], arguments[3])
    _ = fcntl(ReportChannel.descriptor, F_SETFD, FD_CLOEXEC)
    // The plugin runs under the default sandbox (its library, its state directory, what the
    // checker derived from the config: the arguments after the fifth), as an instance would.
    let extra = Array(arguments.dropFirst(5))
    var sandbox = Sandbox(arguments: extra)
    // Confined unless the checker asks for the unconfined comparison run (`--sandbox off`).
    sandbox.enabled = !extra.contains("off")
    sandbox.read.append(path)
    sandbox.write.append(stateDirectory)
    let confinement = sandbox.apply()
    if confinement.signals { pc_signals_reach_only_descendants() }
    let observer = ConformanceObserver(afterStopMs: observeMs)
    observer.report.write(
      "sandbox", confinement.landlockABI > 0 ? "landlock" : "none",
      "Landlock ABI \(confinement.landlockABI), seccomp \(confinement.seccomp ? "on" : "off")"
        + (confinement.problems.isEmpty ? "" : ": " + confinement.problems.joined(separator: "; ")))

    do throws(LoadFailure) {
      let library = try PluginLibrary.open(path)
      let info = library.info
      // The hub finds a plugin by its file name and refuses a descriptor that names another.
      if let foundAs = PluginFileName.pluginName(ofPath: path), foundAs != info.name {
        throw LoadFailure(
          "\(path): the file name says plugin '\(foundAs)', its descriptor says '\(info.name)'; the hub refuses it."
            + " Name the file libpatchbay-plugin-\(info.name).so (or \(info.name).so)")
      }
      observer.report.write(
        "descriptor", "ok",
        "\(info.name) \(info.version), ABI \(info.abiMajor).\(info.abiMinor), descriptor size \(library.declaredSize)"
          + " bytes (ABI 1.0 needs \(PluginLibrary.minimumDescriptorSize))")
    } catch {
      observer.report.write("descriptor", "refused", error.message)
      hostExit(.loadFailed)
    }

    let hub: PacketSocket
    let runtime: HostRuntime
    do throws(SocketError) {
      let (hubEnd, hostEnd) = try PacketSocket.pair()
      hub = hubEnd
      // No hub, no ledger: fd 4 is this process's own socket here.
      runtime = HostRuntime(socket: hostEnd, ledger: .unattached, conformance: observer)
    } catch {
      observer.report.write("failed", "load", "0", "socketpair: \(error)")
      hostExit(.loadFailed)
    }
    let replies = Replies()
    // The hub's reader: what the runtime sends, as the hub would receive it.
    DispatchQueue(label: "patchbay.conformance-hub").async {
      while case .frame(let frame) = hub.receive() {
        guard let message = try? HostMessage.decode(frame) else { continue }
        switch message {
        case .created(_, let ports):
          for port in ports {
            observer.report.write("port", port.name, port.direction.name, port.kind.name, port.type.name)
          }
          replies.post(.created(ports))
        case .started: replies.post(.started)
        case .failed(let stage, let status, let text):
          observer.report.write("failed", stage.name, String(status), text)
          replies.post(.failed)
        case .log(let level, let text): observer.report.write("log", String(level), text)
        default: break
        }
      }
    }

    observer.takeBaseline()
    runtime.handle(
      .load(
        LoadRequest(
          libraryPath: path, instanceName: "conformance", configJSON: configJSON, stateDirectory: stateDirectory,
          logLevel: 1)))
    // A failed create ends the process from the plugin context (after its report).
    guard case .created(let ports) = replies.next() else { parkUntilExit() }
    if stage == "lifecycle" {
      runtime.handle(.start)
      guard case .started = replies.next() else { parkUntilExit() }
      for (index, port) in ports.enumerated() where port.direction == .input {
        runtime.handle(.input(port: UInt32(index), value: sample(of: port.type)))
      }
      // The plugin at work: its timers and threads publish now, if they do.
      observer.watch(for: [.publishMatchesPort, .portsDeclaredInCreate], milliseconds: observeMs)
    }
    // Stop and destroy, then the last report lines and the end of the process.
    runtime.handle(.stop)
    parkUntilExit()
  }

  /// A valid value of each type, one per input port.
  static func sample(of type: ValueType) -> Value {
    switch type {
    case .trigger: .trigger
    case .bool: .bool(true)
    case .integer: .integer(1)
    case .number: .number(0.5)
    case .text: .text("conformance")
    case .color: .color(HSBColor(hue: 120, saturation: 50, brightness: 50))
    case .light: .light(LightCommand(on: true, brightness: 50))
    case .button: .button(ButtonEvent(action: .click))
    }
  }

  private static func parkUntilExit() -> Never {
    while true { pause() }
  }
}

/// The runtime's answers the run waits for, in order.
private final class Replies: Sendable {
  enum Reply { case created([PortDescriptor]), started, failed }
  private let queue = Mutex<[Reply]>([])
  private let posted = DispatchSemaphore(value: 0)

  func post(_ reply: Reply) {
    queue.withLock { $0.append(reply) }
    posted.signal()
  }

  func next() -> Reply {
    posted.wait()
    return queue.withLock { $0.removeFirst() }
  }
}
