import PatchbayValues

/// `[scenes.NAME]`: input ports and the value each gets when the scene is activated, written
/// with the port address in quotes (`"bedroom.light" = { on = false }`). Values are checked
/// against the ports the instances declare (`SceneCompiler`).
public struct SceneSpec: Sendable {
  public var name: String
  public var file: String
  public var settings: [(target: PortAddress, value: JSONValue)]

  package init(name: String, file: String, settings: [(target: PortAddress, value: JSONValue)]) {
    self.name = name
    self.file = file
    self.settings = settings
  }

  public var keyPath: String { "scenes.\(name)" }

  /// The hub's own pseudo-instance: `scene.NAME` (activate) and `scene.NAME.activated`.
  public static let instanceName = "scene"
}

extension ConfigLoader {
  package func parseScene(name: String, _ body: JSONValue, file: String, _ diagnostics: inout [ConfigDiagnostic])
    -> SceneSpec?
  {
    func fail(_ key: String, _ message: String) {
      diagnostics.append(ConfigDiagnostic(file: file, key: key, message: message))
    }
    guard PortDescriptor.isValidName(name), !name.contains(".") else {
      fail("scenes.\(name)", "a scene name is 1-64 of a-z, 0-9 and _ (it becomes the port scene.\(name))")
      return nil
    }
    guard case .object(let members) = body else {
      fail("scenes.\(name)", "must be a table of \"INSTANCE.PORT\" = value")
      return nil
    }
    var settings: [(target: PortAddress, value: JSONValue)] = []
    for (key, value) in members {
      guard let address = PortAddress(key) else {
        fail(
          "scenes.\(name).\(key)",
          "expected an input port address in quotes, like \"\(key).PORT\" = value (a bare dotted key would be a table)"
        )
        continue
      }
      settings.append((address, value))
    }
    if settings.isEmpty { fail("scenes.\(name)", "sets no port: add \"INSTANCE.PORT\" = value lines") }
    return SceneSpec(name: name, file: file, settings: settings)
  }
}
