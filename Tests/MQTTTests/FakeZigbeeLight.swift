import Foundation
import PatchbayTestSupport

/// A Zigbee2MQTT light played by a small python3 script over mosquitto_sub/mosquitto_pub: it
/// applies each `zigbee2mqtt/NAME/set` to its state (as Zigbee2MQTT would) and publishes the
/// new state, retained, on `zigbee2mqtt/NAME`. Prints "applied JSON" per command.
final class FakeZigbeeLight {
  static let script = #"""
    import json, signal, subprocess, sys
    port, name = sys.argv[1], sys.argv[2]
    state = {"state": "OFF", "brightness": 100, "color_mode": "color_temp", "color_temp": 300, "linkquality": 99}
    def publish():
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", port, "-q", "1", "-r",
                        "-t", "zigbee2mqtt/" + name, "-m", json.dumps(state)], check=True)
    sub = subprocess.Popen(["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", port, "-q", "1", "-d",
                            "-t", "zigbee2mqtt/" + name + "/set", "-t", "zigbee2mqtt/" + name + "/get"],
                           stdout=subprocess.PIPE, text=True, bufsize=1)
    def stop(*_):
        sub.kill()
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    for line in sub.stdout:
        if "received SUBACK" in line:
            break
    publish()
    print("ready", flush=True)
    for line in sub.stdout:
        line = line.strip()
        if not line.startswith("{"):
            continue
        command = json.loads(line)
        if "state" in command and command["state"] in ("ON", "OFF"):
            state["state"] = command["state"]
        if "brightness" in command:
            state["brightness"] = max(0, min(254, int(command["brightness"])))
        if "color" in command:
            state["color"] = {"hue": command["color"]["hue"], "saturation": command["color"]["saturation"]}
            state["color_mode"] = "hs"
        elif "color_temp" in command:
            state["color_temp"] = command["color_temp"]
            state["color_mode"] = "color_temp"
        if command:
            print("applied " + json.dumps(command, sort_keys=True), flush=True)
        publish()
    """#

  let process: ChildProcess

  init(directory: TemporaryDirectory, port: Int, name: String) throws {
    let path = try directory.write("fake-zigbee-light.py", Self.script)
    process = try helperProcess("/usr/bin/python3", ["-u", path, String(port), name])
    try process.waitForLine(containing: "ready", within: 30)
  }

  /// The commands applied so far, as the JSON the script printed (keys sorted).
  var applied: [String] {
    process.lines.filter { $0.hasPrefix("applied ") }.map { String($0.dropFirst("applied ".count)) }
  }

  deinit { _ = try? process.terminate(within: 10) }
}
