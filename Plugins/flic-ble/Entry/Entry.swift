import FlicBLEPlugin

// The plugin's one exported symbol (see patchbay/plugin.h).
@_cdecl("patchbay_plugin_describe")
public func patchbayPluginDescribe() -> UnsafeRawPointer { describeFlicBLEPlugin() }
