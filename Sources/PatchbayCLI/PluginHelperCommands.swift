import ArgumentParser

// Per-plugin helper commands (`patchbay flic scan`, `patchbay hue pair`, ...). Each bundled
// plugin that needs pairing adds its command group here.
let pluginHelperCommands: [any ParsableCommand.Type] = [
  // BEGIN plugin helper commands
  FlicCommand.self,
  HueHelperCommand.self,
  // END plugin helper commands
]
