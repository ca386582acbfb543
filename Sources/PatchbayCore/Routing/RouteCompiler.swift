import PatchbayValues

/// The ports every instance declared, by instance name.
public typealias PortCatalog = [String: [PortDescriptor]]

/// Type-checks routes against declared ports and turns their constants into typed values.
public enum RouteCompiler {
  /// `counters`: those of the route this one replaces in a reload (the same identity).
  package static func compile(
    _ spec: RouteSpec, catalog: PortCatalog, counters: RouteCounters = RouteCounters()
  ) -> Result<CompiledRoute, ConfigErrors> {
    var diagnostics: [ConfigDiagnostic] = []
    func fail(_ field: String, _ message: String) {
      diagnostics.append(ConfigDiagnostic(file: spec.file, key: "\(spec.keyPath).\(field)", message: message))
    }
    let source = resolve(spec.from, field: "from", direction: .output, catalog: catalog, fail)
    let targetField = spec.cycleTo.isEmpty ? "to" : "cycle_to"
    let targets = spec.targets.map { resolve($0, field: targetField, direction: .input, catalog: catalog, fail) }
    guard let source, diagnostics.isEmpty else { return .failure(ConfigErrors(diagnostics)) }
    let resolvedTargets = targets.compactMap { $0 }
    let targetTypes = Set(resolvedTargets.map(\.type))
    guard targetTypes.count == 1, let targetType = targetTypes.first else {
      let list = zip(spec.targets, resolvedTargets).map { "\($0) is \($1.type.name)" }.joined(separator: ", ")
      fail(targetField, "all targets of one route must have the same type: \(list)")
      return .failure(ConfigErrors(diagnostics))
    }
    func parse(_ json: JSONValue, as type: ValueType, _ field: String) -> Value? {
      do throws(ValueParseError) {
        return try Value.fromJSON(json, as: type)
      } catch {
        fail(field, error.description)
        return nil
      }
    }
    let filter = spec.filter.map { $0.compactMap { parse($0, as: source.type, "filter") } }
    var map: [String: Value]?
    if let entries = spec.map {
      var table: [String: Value] = [:]
      for (key, value) in entries {
        guard let keyValue = parse(keyJSON(key, for: source.type), as: source.type, "map") else { continue }
        if let mapped = parse(value, as: targetType, "map.\(key)") { table[CompiledRoute.matchKey(keyValue)] = mapped }
      }
      map = table
    }
    let constant = spec.value.flatMap { parse($0, as: targetType, "value") }
    let condition = spec.when.flatMap { CompiledCondition.compile($0, catalog: catalog, fail: fail) }
    let cycle = spec.cycle.map { $0.compactMap { parse($0, as: targetType, "cycle") } }
    let momentaryReset = spec.momentary.flatMap { parse($0.reset, as: targetType, "momentary.reset") }
    let converts = spec.map != nil || spec.value != nil || spec.cycle != nil
    if !converts, source.type != targetType, targetType != .trigger {
      diagnostics.append(
        ConfigDiagnostic(
          file: spec.file, key: spec.keyPath,
          message: "type mismatch: \(spec.from) is \(source.type.name) but "
            + zip(spec.targets, resolvedTargets).map { "\($0) is \($1.type.name)" }.joined(separator: ", ")
            + " (add `map`, `value` or `cycle` to convert)"))
    }
    guard diagnostics.isEmpty else { return .failure(ConfigErrors(diagnostics)) }
    return .success(
      CompiledRoute(
        spec: spec, sourceType: source.type, targetType: targetType, filter: filter, map: map, constant: constant,
        cycle: cycle, momentaryReset: momentaryReset, condition: condition, counters: counters))
  }

  /// Map keys are written as TOML keys (always text); read them as the source type.
  package static func keyJSON(_ key: String, for type: ValueType) -> JSONValue {
    switch type {
    case .text, .button: return .string(key)
    default: return JSONValue.parse(key) ?? .string(key)
    }
  }

  package static func resolve(
    _ address: PortAddress, field: String, direction: PortDirection, catalog: PortCatalog,
    _ fail: (String, String) -> Void
  ) -> PortDescriptor? {
    guard let ports = catalog[address.instance] else {
      fail(
        field,
        "unknown instance '\(address.instance)' in '\(address)'"
          + Suggestion.hint(for: address.instance, in: Array(catalog.keys)))
      return nil
    }
    guard let port = ports.first(where: { $0.name == address.port }) else {
      let same = ports.filter { $0.direction == direction }.map(\.name)
      fail(
        field,
        "instance '\(address.instance)' has no port '\(address.port)'" + Suggestion.hint(for: address.port, in: same)
          + " (\(direction.name)s: \(same.isEmpty ? "none" : same.joined(separator: ", ")))")
      return nil
    }
    guard port.direction == direction else {
      if direction == .input {
        fail(field, "'\(address)' is an output port; a route writes into input ports")
      } else {
        fail(field, "'\(address)' is an input port; a route reads from output ports")
      }
      return nil
    }
    return port
  }
}
