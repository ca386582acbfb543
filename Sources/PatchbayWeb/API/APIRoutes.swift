import Foundation
import Hummingbird
import PatchbayHub

/// The JSON API under /api (docs/web.md): each handler is one control-socket request, so the
/// hub does the work and the checks (types, names) and its messages reach the caller as they are.
struct APIRoutes: Sendable {
  let hub: HubClient
  let live: LiveValues
  let policy: AccessPolicy
  /// How long one event stream lasts before the browser is made to reconnect.
  let streamLifetime: Duration

  func register(on router: Router<WebRequestContext>) {
    let api = router.group("api")
    api.get("session") { request, _ in session(request) }
    api.get("status") { _, _ in await status() }
    api.get("ports") { _, _ in await ports() }
    api.get("routes") { _, _ in await routes() }
    api.get("scenes") { _, _ in await scenes() }
    api.get("log") { request, _ in await log(request) }
    api.get("homekit") { _, _ in await homeKit() }
    api.get("sandbox") { _, _ in await sandbox() }
    api.get("events") { _, _ in events() }
    api.post("send") { request, context in
      guard let body = try? await request.decode(as: SendRequest.self, context: context) else {
        return APIResponse.error(.badRequest, #"expected {"address": "INSTANCE.PORT", "value": "..."}"#)
      }
      return await perform(ControlRequest(command: .send, address: body.address, value: body.value))
    }
    api.post("restart") { request, context in
      guard let body = try? await request.decode(as: RestartRequest.self, context: context) else {
        return APIResponse.error(.badRequest, #"expected {"instance": "NAME"}"#)
      }
      return await perform(ControlRequest(command: .restart, instance: body.instance))
    }
    api.post("scenes/:name/activate") { _, context in
      let name = context.parameters.get("name") ?? ""
      return await perform(ControlRequest(command: .send, address: "scene.\(name)", value: "trigger"))
    }
  }

  /// The hub's answer, or the response that says it could not be reached.
  private enum HubAnswer {
    case success(ControlResponse)
    case failure(Response)
  }

  /// Asks the hub; 503 when it cannot be reached.
  private func ask(_ request: ControlRequest) async -> HubAnswer {
    do throws(ControlError) {
      return .success(try await hub.request(request))
    } catch {
      return .failure(APIResponse.error(.serviceUnavailable, "hub unreachable: \(error.description)"))
    }
  }

  private func perform(_ request: ControlRequest) async -> Response {
    switch await ask(request) {
    case .failure(let response): return response
    case .success(let answer):
      return APIResponse.json(
        APIModels.Done(ok: answer.ok, message: answer.message), status: answer.ok ? .ok : .unprocessableContent)
    }
  }

  private enum StatusAnswer {
    case success((HubStatus, Int?))
    case failure(Response)
  }

  private func hubStatus() async -> StatusAnswer {
    switch await ask(ControlRequest(command: .status)) {
    case .failure(let response): return .failure(response)
    case .success(let answer):
      guard let status = answer.status else {
        return .failure(APIResponse.error(.badGateway, answer.message ?? "the hub gave no status"))
      }
      return .success((status, answer.protocolVersion))
    }
  }

  private func session(_ request: Request) -> Response {
    let session = request.cookies[AccessPolicy.sessionCookie]?.value
    // A bearer caller needs no CSRF value; it gets the open one (empty with a token).
    let csrf = policy.csrf(forSession: session) ?? ""
    return APIResponse.json(
      APIModels.Session(csrf: csrf, csrfHeader: AccessPolicy.csrfHeader, loginRequired: policy.requiresLogin))
  }

  private func status() async -> Response {
    switch await hubStatus() {
    case .failure(let response): return response
    case .success(let (status, version)):
      return APIResponse.json(
        APIModels.Status(
          hub: .init(
            version: status.version, pid: status.pid, uptimeSeconds: status.uptimeSeconds, protocolVersion: version),
          instances: status.instances.map(APIModels.Instance.init)))
    }
  }

  private func ports() async -> Response {
    // The hub retains outputs, and tells what it last gave each state input.
    async let valuesAnswer = ask(ControlRequest(command: .values))
    switch await hubStatus() {
    case .failure(let response): return response
    case .success(let (status, _)):
      var inputs: [String: String] = [:]
      if case .success(let answer) = await valuesAnswer {
        for entry in answer.inputs ?? [] { inputs[entry.address] = entry.value }
      }
      return APIResponse.json(
        APIModels.Ports(ports: APIModels.ports(of: status, values: live.lastValues, inputs: inputs)))
    }
  }

  private func routes() async -> Response {
    async let statusAnswer = ask(ControlRequest(command: .status))
    switch await ask(ControlRequest(command: .routes)) {
    case .failure(let response): return response
    case .success(let answer):
      guard answer.ok, let routes = answer.routes else {
        return APIResponse.error(
          .badGateway, "the hub does not list routes (protocol 2 needed): \(answer.message ?? "")")
      }
      var inactive: [String] = []
      if case .success(let status) = await statusAnswer { inactive = status.status?.inactiveRoutes ?? [] }
      return APIResponse.json(APIModels.Routes(routes: routes, inactive: inactive))
    }
  }

  private func scenes() async -> Response {
    switch await hubStatus() {
    case .failure(let response): return response
    case .success(let (status, _)):
      return APIResponse.json(
        APIModels.Scenes(
          scenes: status.scenes.map { .init(name: $0.name, ports: $0.ports, activations: $0.activations) }))
    }
  }

  private func homeKit() async -> Response {
    async let valuesAnswer = ask(ControlRequest(command: .values))
    switch await hubStatus() {
    case .failure(let response): return response
    case .success(let (status, _)):
      var values: [String: String] = [:]
      if case .success(let answer) = await valuesAnswer {
        for entry in answer.values ?? [] { values[entry.address] = entry.value }
      }
      let bridges = status.instances.filter { $0.plugin == HomeKitPanel.plugin }
      return APIResponse.json(APIModels.HomeKit(bridges: bridges.map { HomeKitPanel($0, values: values) }))
    }
  }

  private func sandbox() async -> Response {
    switch await hubStatus() {
    case .failure(let response): return response
    case .success(let (status, _)): return APIResponse.json(SandboxView(status))
    }
  }

  private func log(_ request: Request) async -> Response {
    let query = request.uri.queryParameters
    let instance = query.get("instance").flatMap { $0.isEmpty ? nil : $0 }
    let level = query.get("level").flatMap { $0.isEmpty ? nil : $0 }
    let lines = query.get("lines").flatMap { Int($0) } ?? 300
    switch await ask(ControlRequest(command: .log, instance: instance, lines: lines, level: level)) {
    case .failure(let response): return response
    case .success(let answer):
      guard answer.ok, let records = answer.log else {
        return APIResponse.error(
          .badGateway, "the hub does not give its log (protocol 2 needed): \(answer.message ?? "")")
      }
      return APIResponse.json(APIModels.Log(lines: records))
    }
  }

  /// Server-sent events: `event: value` with `INSTANCE.PORT VALUE`, and `event: hub` with up or
  /// down. Ends when the browser goes away (the write fails), after `streamLifetime` (the browser
  /// reconnects in 1 s), or at shutdown.
  private func events() -> Response {
    let stream = live.subscribe(lifetime: streamLifetime)
    let body = ResponseBody { writer in
      try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
      for await event in stream {
        let text: String
        switch event {
        case .value(let line):
          text =
            "event: value\n"
            + line.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "data: \($0)\n" }.joined() + "\n"
        case .hub(let up): text = "event: hub\ndata: \(up ? "up" : "down")\n\n"
        }
        try await writer.write(ByteBuffer(string: text))
      }
      try await writer.finish(nil)
    }
    return Response(
      status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
  }
}
