import Testing

/// Every suite of the python plugin runs under this one, one test at a time: each starts a hub and
/// plugin processes, and concurrent process spawns can hold each other's output pipes open.
@Suite(.serialized) enum PythonPluginTests {}
