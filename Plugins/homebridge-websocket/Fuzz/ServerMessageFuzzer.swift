// libFuzzer target for the client's handler of server frames (ClientSession.receive): any
// bytes from a Homebridge must be logged or handled, never crash; and whatever the session
// answers must be a frame the real server survives (JSON object, object payload, no string
// values, values inside the characteristic's range).
// Built and run by run-fuzz next to this file, outside `swift build`.

import PatchbayValues

nonisolated(unsafe) var session: ClientSession = {
  let accessories = [
    try! AccessoryDefinition(name: "ws_morning", service: "Switch"),
    try! AccessoryDefinition(name: "desk", service: "Lightbulb", enabling: ["brightness", "hue", "saturation"]),
    try! AccessoryDefinition(name: "hall", service: "TemperatureSensor"),
    try! AccessoryDefinition(name: "remote", service: "StatelessProgrammableSwitch"),
  ]
  var session = ClientSession(accessories: accessories)
  _ = session.opened()
  return session
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let output = session.receive(text: text)
  for message in output.send { checkSafe(message) }
  return 0
}

func checkSafe(_ message: ClientMessage) {
  guard let json = JSONValue.parse(message.text), let payload = json["payload"]?.objectValue else {
    preconditionFailure("sent a frame without an object payload: \(message.text)")
  }
  switch message {
  case .setValue(let name, let characteristic, let value), .callback(let name, let characteristic, let value):
    let spec = session.accessories.first { $0.name == name }?.characteristic(named: characteristic)
    precondition(spec != nil, "sent a value for an unknown characteristic: \(message.text)")
    precondition(value.stringValue == nil && value != .null, "sent a non-HAP value: \(message.text)")
    precondition(spec!.conformed(value) == value, "sent a value outside the characteristic: \(message.text)")
    // The server reads numbers the JavaScript way (`1` and `1.0` alike): compare what it reads.
    precondition(payload["value"].flatMap(spec!.conformed) == value, "value lost in encoding: \(message.text)")
  case .add(let definition):
    precondition(!PrototypePropertyNames.contains(definition.name), "sent a name Homebridge crashes on")
  case .remove(let name), .get(let name):
    precondition(!PrototypePropertyNames.contains(name), "sent a name Homebridge crashes on: \(message.text)")
  }
}
