// A Swift plugin sees the hub's own value types (Value, LightCommand, HSBColor, ButtonEvent,
// ValueType, PortKind) through the kit: one definition for hub, host and plugins.
@_exported import PatchbayValues
