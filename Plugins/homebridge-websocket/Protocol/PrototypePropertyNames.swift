/// Names every JavaScript object already has as a property (`Object.prototype`'s members).
///
/// homebridge-websocket 0.2.2 keeps its accessories in a plain object keyed by name, so for
/// these names `accessories[name]` finds the inherited property: `add` answers "is already
/// used.", and the next `setValue` or `callback` reads `.service.getCharacteristic` of it and
/// throws a TypeError that ends the Node process. No client may ever send such a name.
public enum PrototypePropertyNames {
  public static let all: Set<String> = [
    "constructor", "__proto__", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf",
    "propertyIsEnumerable", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
  ]

  public static func contains(_ name: String) -> Bool { all.contains(name) }
}
