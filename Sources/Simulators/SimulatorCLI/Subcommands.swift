import ArgumentParser
import FlicdSimulator

// Each simulator adds its subcommand here.
let simulatorSubcommands: [any ParsableCommand.Type] = [
  // BEGIN simulator subcommands
  FlicdCommand.self,
  // END simulator subcommands
]
