import ArgumentParser

// Each simulator adds its subcommand here.
let simulatorSubcommands: [any ParsableCommand.Type] = [
  // BEGIN simulator subcommands
  // END simulator subcommands
]
