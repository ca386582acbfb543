/// Loops the hub can see whole: routes from `scene.A.activated` into `scene.B`, round to where
/// they began. Every hop of such a loop is the hub's own (no plugin decides to pass it on), so
/// each activation would start the next one forever: a config error, not something to run.
/// (A loop through plugins is cut at run time by its hop count instead: `WireProtocol.maximumHops`.)
package enum SceneLoops {
  private struct Edge {
    var to: String
    var route: RouteSpec
  }

  /// One diagnostic per loop found, at the route that closes it, spelling the loop out.
  package static func find(routes: [RouteSpec]) -> [ConfigDiagnostic] {
    let suffix = ".activated"
    var edges: [String: [Edge]] = [:]
    for route in routes where route.from.instance == SceneSpec.instanceName && route.from.port.hasSuffix(suffix) {
      let scene = String(route.from.port.dropLast(suffix.count))
      for target in route.targets where target.instance == SceneSpec.instanceName {
        edges[scene, default: []].append(Edge(to: target.port, route: route))
      }
    }
    var diagnostics: [ConfigDiagnostic] = []
    var done: Set<String> = []
    // Depth-first, iteratively (a config may chain many scenes): `path` is the chain being
    // followed, each with the index of its next edge to try.
    for start in edges.keys.sorted() where !done.contains(start) {
      var path: [(scene: String, next: Int, via: RouteSpec?)] = [(start, 0, nil)]
      var onPath: Set<String> = [start]
      while let top = path.last {
        let out = edges[top.scene] ?? []
        guard top.next < out.count else {
          done.insert(top.scene)
          onPath.remove(top.scene)
          path.removeLast()
          continue
        }
        path[path.count - 1].next += 1
        let edge = out[top.next]
        if onPath.contains(edge.to) {
          let begin = path.firstIndex { $0.scene == edge.to }!
          let scenes = path[begin...].map(\.scene) + [edge.to]
          let hops = path[begin...].dropFirst().compactMap(\.via) + [edge.route]
          diagnostics.append(diagnostic(scenes: scenes, routes: hops))
        } else if !done.contains(edge.to) {
          path.append((edge.to, 0, edge.route))
          onPath.insert(edge.to)
        }
      }
    }
    return diagnostics
  }

  /// `scenes` runs round the loop (the last is the first again); `routes[i]` leads from
  /// `scenes[i]` to `scenes[i + 1]`, and the last of them closes the loop.
  private static func diagnostic(scenes: [String], routes: [RouteSpec]) -> ConfigDiagnostic {
    let closing = routes[routes.count - 1]
    let steps = routes.indices.map { index in
      let route = routes[index]
      let place = route.file == closing.file ? route.keyPath : "\(route.keyPath) in \(route.file)"
      return "scene.\(scenes[index]).activated -> scene.\(scenes[index + 1]) (\(place))"
    }
    let what = routes.count == 1 ? "scene.\(scenes[0]) activates itself" : "scenes activate each other in a loop"
    return ConfigDiagnostic(
      file: closing.file, key: closing.keyPath,
      message: "\(what): \(steps.joined(separator: ", then ")); each activation would start the next one forever."
        + " A scene may not trigger itself, directly or through other scenes: remove or redirect one of these routes")
  }
}
