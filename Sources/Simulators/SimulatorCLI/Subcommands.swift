import ArgumentParser
import FlicdSimulator
import HomebridgeSimulator
import HueSimulator

// Each simulator adds its subcommand here.
let simulatorSubcommands: [any ParsableCommand.Type] = [
  // BEGIN simulator subcommands
  FlicdCommand.self,
  HomebridgeCommand.self,
  HueCommand.self,
  // END simulator subcommands
]
