import Foundation
import PatchbayHub

/// `patchbay status --sandbox`: per instance, what it may read, write, connect to and bind,
/// what its host confirmed, and how many system calls were refused.
enum SandboxTable {
  struct Entry: Encodable {
    var instance: String
    var plugin: String
    var sandbox: SandboxStatus?
  }

  static func entries(_ status: HubStatus) -> [Entry] {
    status.instances.map { Entry(instance: $0.name, plugin: $0.plugin, sandbox: $0.sandbox) }
  }

  static func render(_ status: HubStatus) -> String {
    var lines: [String] = []
    for instance in status.instances {
      lines.append("\(instance.name) (\(instance.plugin))")
      guard let sandbox = instance.sandbox else {
        lines.append("  not started yet")
        continue
      }
      let policy = sandbox.policy
      guard policy.enabled else {
        lines.append("  UNCONFINED: sandbox.enabled = false in its config")
        continue
      }
      switch sandbox.landlockABI {
      case nil: lines.append("  confinement: not reported yet")
      case 0?: lines.append("  confinement: NO LANDLOCK on this kernel: files, ports and signals are not confined")
      case let abi?:
        lines.append(
          "  confinement: Landlock ABI \(abi)" + (sandbox.signalsScoped ? ", signals scoped" : ", signals NOT scoped")
            + (sandbox.seccomp ? ", seccomp" : ", NO seccomp"))
      }
      lines.append("  read:    system libraries and files; " + policy.read.joined(separator: ", "))
      lines.append("  write:   " + policy.write.joined(separator: ", "))
      if policy.networkAny {
        lines.append("  network: ANY (network = \"any\")")
      } else if sandbox.landlockABI != nil, !sandbox.networkConfined {
        lines.append("  network: not confined (the kernel's Landlock has no TCP rules before ABI 4)")
      } else {
        lines.append(
          "  connect: " + (policy.connect.isEmpty ? "none" : policy.connect.map(String.init).joined(separator: ", ")))
        lines.append(
          "  bind:    " + (policy.bind.isEmpty ? "none" : policy.bind.map(String.init).joined(separator: ", ")))
      }
      let unix =
        if policy.unixSockets {
          "ALLOWED (may connect to any named Unix socket its user can open: D-Bus, avahi-daemon)"
        } else if sandbox.seccomp {
          "refused (no socket(AF_UNIX): not the control socket, not D-Bus)"
        } else {
          "NOT confined (no seccomp)"
        }
      lines.append("  unix:    " + unix)
      lines.append("  refused system calls: \(sandbox.refusedCalls)")
    }
    return lines.joined(separator: "\n")
  }
}
