import ArgumentParser
import HomebridgeSimulator

// Each simulator adds its subcommand here.
let simulatorSubcommands: [any ParsableCommand.Type] = [
  // BEGIN simulator subcommands
  HomebridgeCommand.self,
  // END simulator subcommands
]
