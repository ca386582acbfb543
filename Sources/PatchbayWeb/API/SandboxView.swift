import PatchbayHub

/// `GET /api/sandbox`: per instance, what its sandbox lets it touch and what its host confirmed,
/// the same entries as `patchbay status --sandbox --json` (docs/architecture.md).
struct SandboxView: Encodable {
  struct Entry: Encodable {
    var instance: String
    var plugin: String
    /// Nil before the instance first started.
    var sandbox: SandboxStatus?
  }

  var instances: [Entry]

  init(_ status: HubStatus) {
    instances = status.instances.map { Entry(instance: $0.name, plugin: $0.plugin, sandbox: $0.sandbox) }
  }
}
