import Foundation
import PatchbayTestSupport
import Testing

extension PythonPluginTests {
  /// `patchbay check` runs each Python instance's create() in a probe process and reports a
  /// missing module, an import failure or an exception in create with the instance and the key.
  @Suite struct ConfigCheckTests {
    @Test func aMissingModuleOrARaisingCreateIsReportedWithTheKey() throws {
      let hub = try HubUnderTest.python()
      let raising = try hub.writeModule(
        "raising",
        """
        def create(ctx, config):
            raise ValueError("chime is required")
        """)
      try hub.writeConfig(
        HubTOML()
          .instance("missing", plugin: "python", ["module": "\(hub.path)/modules/nowhere.py"])
          .instance("unknown", plugin: "python", ["module": "no_such_module_for_patchbay"])
          .instance("raising", plugin: "python", ["module": "\(raising)"])
          .instance("nomodule", plugin: "python"))
      let check = try hub.cli("check")
      #expect(check.status == 1)
      #expect(check.output.contains(#"instances.missing"#))
      #expect(check.output.contains(#"module = "\#(hub.path)/modules/nowhere.py": no such file"#))
      #expect(
        check.output.contains(#"module = "no_such_module_for_patchbay": no module named 'no_such_module_for_patchbay'"#)
      )
      #expect(
        check.output.contains(#"module = "\#(raising)": create(ctx, config) raised ValueError: chime is required"#))
      #expect(check.output.contains("module: missing"))
      #expect(check.output.contains("4 problems found"))
    }

    /// The plugin is loaded RTLD_LOCAL; CPython's C extension modules still find libpython's symbols.
    @Test func theStandardLibrarysCExtensionsImport() throws {
      let hub = try HubUnderTest.python()
      let module = try hub.writeModule(
        "extensions",
        """
        import ctypes, decimal, hashlib, json, socket, sqlite3, ssl

        def create(ctx, config):
            sqlite3.connect(":memory:").execute("select 1")
            ctx.add_output("ok", "bool")
        """)
      try hub.writeConfig(
        HubTOML()
          .instance("extensions", plugin: "python", ["module": "\(module)"]))
      let check = try hub.cli("check")
      #expect(check.status == 0, "\(check.output)")
    }

    @Test func aVenvsPackagesAreImportableAndAMissingVenvIsReported() throws {
      let hub = try HubUnderTest.python()
      let version = try runProgram(
        "/usr/bin/env", ["python3", "-c", "import sys; print(f'python{sys.version_info[0]}.{sys.version_info[1]}')"])
      let pythonDir = version.output.trimmingCharacters(in: .whitespacesAndNewlines)
      try hub.directory.write("venv/lib/\(pythonDir)/site-packages/chimes_for_patchbay.py", "TUNE = 'ding dong'\n")
      let module = try hub.writeModule(
        "chime",
        """
        import chimes_for_patchbay

        def create(ctx, config):
            ctx.add_output("tune", "text")
        """)
      try hub.writeConfig(
        HubTOML()
          .instance("chime", plugin: "python", ["module": "\(module)", "venv": "\(hub.path)/venv"]))
      let good = try hub.cli("check")
      #expect(good.status == 0, "\(good.output)")

      try hub.writeConfig(
        HubTOML()
          .instance("chime", plugin: "python", ["module": "\(module)"])
          .instance("novenv", plugin: "python", ["module": "\(module)", "venv": "\(hub.path)/no-venv-here"]))
      let bad = try hub.cli("check")
      #expect(bad.status == 1)
      #expect(bad.output.contains("importing it raised ModuleNotFoundError: No module named 'chimes_for_patchbay'"))
      #expect(bad.output.contains(#"venv = "\#(hub.path)/no-venv-here": no such directory"#))
    }
  }
}
