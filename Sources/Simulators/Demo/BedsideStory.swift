/// The bedside story as a config: a Flic button under the bedside table toggles between the
/// "Good Morning" and "Good Night" HomeKit scenes through two momentary switches; a double
/// click toggles party mode (the HomeKit switch "party" shows and controls it); a hold turns
/// everything off. `etc/examples/bedside.toml` is the same config with the default ports, for
/// a real flicd, Homebridge and Hue bridge.
enum BedsideStory {
  static let buttonAddress = "80:e4:da:71:b6:8e"

  /// HomeKit automations the Homebridge simulator plays, as a real Home would have them.
  static let automations = [
    "ws_morning.On=true: scene Good Morning: ws_morning.On=false, ws_evening.On=false",
    "ws_evening.On=true: scene Good Night: ws_morning.On=false, ws_evening.On=false, party.On=false",
  ]

  static func config(directory: String, flicdPort: Int, homebridgePort: Int, huePort: Int) -> String {
    """
    [hub]
    state_directory = "\(directory)/state"
    control_socket = "\(directory)/control.sock"

    [instances.bedside]
    plugin = "flic"
    port = \(flicdPort)
    click_events = "single_double_hold"
    [[instances.bedside.buttons]]
    name = "button"
    address = "\(buttonAddress)"

    [instances.homekit]
    plugin = "homebridge-websocket"
    url = "ws://127.0.0.1:\(homebridgePort)"
    [[instances.homekit.accessories]]
    name = "ws_morning"
    service = "Switch"
    [[instances.homekit.accessories]]
    name = "ws_evening"
    service = "Switch"
    [[instances.homekit.accessories]]
    name = "party"
    service = "Switch"

    # Single click: turn on ws_morning and ws_evening in turn; each is turned off again after
    # 1.5 s (momentary), so the next press always fires its HomeKit automation. Which one ran
    # last is saved, so the alternation survives a hub restart.
    [[routes]]
    name = "bedside-scenes"
    from = "bedside.button.button"
    filter = ["click"]
    value = true
    cycle_to = ["homekit.ws_morning.on", "homekit.ws_evening.on"]
    momentary = { reset = false, after_ms = 1500 }

    # Double click: toggle party mode.
    [[routes]]
    name = "bedside-party"
    from = "bedside.button.button"
    filter = ["double_click"]
    to = "party.toggle"

    # The HomeKit switch "party": HomeKit's writes start and stop the party, and the switch
    # shows whether it runs (a value set from here is not a HomeKit write: no loop).
    [[routes]]
    name = "homekit-party"
    from = "homekit.party.on.set"
    to = "party.run"
    [[routes]]
    name = "party-switch"
    from = "party.running"
    to = "homekit.party.on"

    # Hold: everything off (the party stops and restores the lights).
    [[routes]]
    name = "bedside-all-off"
    from = "bedside.button.button"
    filter = ["hold"]
    value = false
    to = ["homekit.ws_morning.on", "homekit.ws_evening.on"]
    [[routes]]
    name = "bedside-party-off"
    from = "bedside.button.button"
    filter = ["hold"]
    to = "party.stop"

    \(PartyStory.config(huePort: huePort))
    """
  }
}
