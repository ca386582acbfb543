import ArgumentParser
import FlicdSimulator
import HomebridgeSimulator

// Each simulator adds its subcommand here.
let simulatorSubcommands: [any ParsableCommand.Type] = [
  // BEGIN simulator subcommands
  FlicdCommand.self,
  HomebridgeCommand.self,
  // END simulator subcommands
]
