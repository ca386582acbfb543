import PatchbayValues

/// A scene whose values are typed for their ports.
public struct CompiledScene: Sendable {
  public var spec: SceneSpec
  public var values: [(target: PortAddress, port: PortDescriptor, value: Value)]
}

/// Type-checks scenes against declared ports, and declares the hub's `scene` pseudo-instance
/// so routes can activate scenes and follow their activation.
public enum SceneCompiler {
  public static func compile(_ spec: SceneSpec, catalog: PortCatalog) -> Result<CompiledScene, ConfigErrors> {
    var diagnostics: [ConfigDiagnostic] = []
    var values: [(target: PortAddress, port: PortDescriptor, value: Value)] = []
    for (target, json) in spec.settings {
      let key = "\(spec.keyPath).\"\(target)\""
      let fail = { (_: String, message: String) in
        diagnostics.append(ConfigDiagnostic(file: spec.file, key: key, message: message))
      }
      guard target.instance != SceneSpec.instanceName else {
        fail("", "a scene sets instance ports, not another scene")
        continue
      }
      guard let port = RouteCompiler.resolve(target, field: "", direction: .input, catalog: catalog, fail) else {
        continue
      }
      do throws(ValueParseError) {
        values.append((target, port, try Value.fromJSON(json, as: port.type)))
      } catch {
        fail("", "\(target) takes \(port.type.name): \(error.description)")
      }
    }
    guard diagnostics.isEmpty else { return .failure(ConfigErrors(diagnostics)) }
    return .success(CompiledScene(spec: spec, values: values))
  }

  /// The ports of the `scene` pseudo-instance: `NAME` (input: any event activates it; declared
  /// as a trigger, which every type may be routed to) and `NAME.activated` (output event).
  public static func ports(of scenes: [SceneSpec]) -> [PortDescriptor] {
    scenes.flatMap { scene in
      [
        PortDescriptor(
          name: scene.name, direction: .input, kind: .event, type: .trigger, description: "activates the scene"),
        PortDescriptor(
          name: scene.name + ".activated", direction: .output, kind: .event, type: .trigger,
          description: "after the scene's values were handed out"),
      ]
    }
  }
}
