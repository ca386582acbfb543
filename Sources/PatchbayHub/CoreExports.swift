// Everyone who imports the hub gets its core too: config, routes, supervision, the hub itself.
@_exported import PatchbayCore
