import ArgumentParser
import FlicdSimulator
import HomebridgeSimulator
import HueSimulator
import SimulatorDemo

// Each simulator adds its subcommand here.
let simulatorSubcommands: [any ParsableCommand.Type] = [
  // BEGIN simulator subcommands
  FlicdCommand.self,
  HomebridgeCommand.self,
  HueCommand.self,
  // END simulator subcommands
  // The bedside story against the simulators above and a real hub.
  DemoCommand.self,
]
