"""A HAP-python 5.0.0 accessory server for the controller tests: a bridge holding a colour
Lightbulb, a ContactSensor, a StatelessProgrammableSwitch, a Switch and a WindowCovering,
listening on ADDRESS (default 127.0.0.1) on the given port (the test holds it reserved:
HAP-python takes 0 for its default 51827). With "mdns" it advertises itself with HAP-python's
own zeroconf, as on a real network; without, nothing is advertised (the tests connect by
address and port).

Prints JSON lines: {"ready": {"port": ..., "mac": ...}} once listening, {"set": NAME, "value": V}
when a controller writes; reads one JSON command per stdin line and answers {"ok": ...}:
{"cmd": "contact", "value": 1}, {"cmd": "press", "value": 0}, {"cmd": "position", "value": 40},
{"cmd": "unpair", "id": UUID}, {"cmd": "pairings"}.

Usage: hap_python_accessory.py STATE_FILE SETUP_CODE PORT [ADDRESS [mdns|none]]
"""

import asyncio
import json
import logging
import sys
import threading
import uuid

from pyhap.accessory import Accessory, Bridge
from pyhap.accessory_driver import AccessoryDriver

STATE_FILE, CODE, PORT = sys.argv[1], sys.argv[2], int(sys.argv[3])
ADDRESS = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
ADVERTISE = len(sys.argv) > 5 and sys.argv[5] == "mdns"
logging.basicConfig(level=logging.INFO, stream=sys.stderr)


def say(obj):
    print(json.dumps(obj), flush=True)


class NoAdvertiser:
    """Stands in for zeroconf's AsyncZeroconf: nothing is advertised."""

    async def async_register_service(self, *args, **kwargs):
        pass

    async def async_update_service(self, *args, **kwargs):
        pass

    async def async_unregister_service(self, *args, **kwargs):
        pass

    async def async_close(self):
        pass


def reporter(name):
    return lambda value: say({"set": name, "value": value})


driver = AccessoryDriver(
    address=ADDRESS, port=PORT, persist_file=STATE_FILE, pincode=CODE.encode(),
    **({} if ADVERTISE else {"async_zeroconf_instance": NoAdvertiser()}))
bridge = Bridge(driver, "Test Bridge")

lamp = Accessory(driver, "Lamp")
light = lamp.add_preload_service("Lightbulb", chars=["Brightness", "Hue", "Saturation"])
for name, char in (("on", "On"), ("brightness", "Brightness"), ("hue", "Hue"), ("saturation", "Saturation")):
    light.configure_char(char, setter_callback=reporter(name))
bridge.add_accessory(lamp)

door = Accessory(driver, "Door")
contact = door.add_preload_service("ContactSensor").configure_char("ContactSensorState")
bridge.add_accessory(door)

button = Accessory(driver, "Button")
press = button.add_preload_service("StatelessProgrammableSwitch").configure_char("ProgrammableSwitchEvent")
bridge.add_accessory(button)

plug = Accessory(driver, "Plug")
plug.add_preload_service("Switch").configure_char("On", setter_callback=reporter("switch"))
bridge.add_accessory(plug)

blind = Accessory(driver, "Blind")
covering = blind.add_preload_service("WindowCovering")
position = covering.configure_char("CurrentPosition")
bridge.add_accessory(blind)

driver.add_accessory(bridge)


def run(command):
    name = command.get("cmd")
    if name == "contact":
        contact.set_value(command["value"])
        return True
    if name == "press":
        press.set_value(command["value"])
        return True
    if name == "position":
        position.set_value(command["value"])
        return True
    if name == "unpair":
        driver.unpair(uuid.UUID(command["id"]))
        driver.finish_pair()
        return True
    if name == "pairings":
        return {str(client): driver.state.is_admin(client) for client in driver.state.paired_clients}
    raise ValueError(f"unknown command {name}")


def read_commands():
    for line in sys.stdin:
        command = json.loads(line)

        def answer(command=command):
            try:
                say({"ok": run(command)})
            except Exception as error:  # the test sees it in the answer
                say({"error": type(error).__name__, "message": str(error)})

        driver.loop.call_soon_threadsafe(answer)
    driver.loop.call_soon_threadsafe(driver.loop.stop)


async def start():
    await driver.async_start()
    port = driver.http_server.server.sockets[0].getsockname()[1]
    say({"ready": {"port": port, "mac": driver.state.mac}})


driver.loop.create_task(start())
threading.Thread(target=read_commands, daemon=True).start()
driver.loop.run_forever()
