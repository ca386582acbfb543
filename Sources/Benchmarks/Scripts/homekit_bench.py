"""patchbay-bench's HomeKit section (figure 10, docs/BENCHMARKS.md): both Python ends of it.

  homekit_bench.py accessory PORT COUNT STATE_FILE SETUP_CODE
      The baseline: a HAP-python 5.0.0 bridge on 127.0.0.1:PORT serving the same COUNT
      accessories as the benchmark's patchbay config (accessory_names()). It prints
      {"ready": pid} once it listens; {"setter": ns} when a controller's write of the `Write`
      switch reaches its setter callback; and, for each stdin line "set NAME VALUE MODE",
      {"set": ns}, the time just before char.set_value (MODE "coalesced": HAP-python's own
      notify, which batches events for 0.5 s) or before the same value is pushed at once
      (MODE "immediate": set_value without notify, then publish(immediate=True)).
      No mDNS: a no-op advertiser stands in for zeroconf (the controller is given host and port).

  homekit_bench.py controller HOST PORT
      aiohomekit 4.0.1 as the controller, one JSON command per stdin line, one JSON answer
      ({"ok": ...}, or {"ok": null, "error": ..., "message": ...}); events arrive at any time as
      {"event": {"aid.iid": value}, "at": ns}. Commands: pair, accessories, verify, write
      (answers [ns before the put, ns when its response was in]), subscribe.

Every time is time.monotonic_ns(), CLOCK_MONOTONIC: the clock the hub's C probes stamp with.
"""

import asyncio
import json
import os
import sys
import time


def say(obj):
    print(json.dumps(obj), flush=True)


def accessory_names(count):
    """(name, service) of the benchmark's accessories, the same for patchbay and HAP-python:
    a switch whose writes are timed, a switch whose events are timed, then lamps and switches."""
    names = [("Write", "switch"), ("Event", "switch")]
    for index in range(3, count + 1):
        names.append((f"Lamp {index}", "lightbulb" if index % 2 else "switch"))
    return names[:count]


# ---------------------------------------------------------------------------------------------
# The HAP-python accessory server


class NoAdvertiser:
    """Stands in for AsyncZeroconf: the benchmark sends nothing beyond loopback."""

    async def async_register_service(self, *args, **kwargs):
        pass

    async def async_update_service(self, *args, **kwargs):
        pass

    async def async_unregister_service(self, *args, **kwargs):
        pass

    async def async_close(self):
        pass


def run_accessory(port, count, state_file, setup_code):
    from pyhap.accessory import Accessory, Bridge
    from pyhap.accessory_driver import AccessoryDriver

    driver = AccessoryDriver(
        address="127.0.0.1",
        port=port,
        persist_file=state_file,
        pincode=setup_code.encode(),
        mac="0E:1A:2B:3C:4D:5E",
        async_zeroconf_instance=NoAdvertiser(),
    )
    bridge = Bridge(driver, "patchbay-bench")
    switches = {}
    for name, service in accessory_names(count):
        accessory = Accessory(driver, name)
        if service == "lightbulb":
            chars = ["Brightness", "Hue", "Saturation", "ColorTemperature"]
            added = accessory.add_preload_service("Lightbulb", chars=chars)
        else:
            added = accessory.add_preload_service("Switch")
        bridge.add_accessory(accessory)
        switches[name] = added.get_characteristic("On")

    def on_write(value):
        at = time.monotonic_ns()
        say({"setter": at, "value": value})

    switches["Write"].setter_callback = on_write
    driver.add_accessory(accessory=bridge)

    async def main():
        await driver.async_start()
        say({"ready": os.getpid()})
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while line := await reader.readline():
            words = line.decode().split()
            if len(words) != 4 or words[0] != "set":
                say({"error": "ValueError", "message": f"unknown command {line!r}"})
                continue
            name, value, mode = words[1], words[2] == "true", words[3]
            char = switches[name]
            if mode == "immediate":
                at = time.monotonic_ns()
                char.set_value(value, should_notify=False)
                char.broker.publish(char.value, char, None, True)
            else:
                at = time.monotonic_ns()
                char.set_value(value)
            say({"set": at})
        await driver.async_stop()

    driver.loop.run_until_complete(main())


# ---------------------------------------------------------------------------------------------
# The aiohomekit controller


def short_type(uuid):
    """'00000025-0000-1000-8000-0026BB765291' or '25' -> '25'."""
    text = str(uuid).upper()
    if "-" in text:
        text = text.split("-")[0]
    return text.lstrip("0") or "0"


def run_controller(host, port):
    import uuid

    from aiohomekit.characteristic_cache import CharacteristicCacheMemory
    from aiohomekit.controller.ip.connection import HomeKitConnection, SecureHomeKitConnection
    from aiohomekit.controller.ip.pairing import IpPairing, format_characteristic_list
    from aiohomekit.protocol import perform_pair_setup_part1, perform_pair_setup_part2

    class Controller:
        """What IpPairing needs of a controller: a characteristic cache."""

        def __init__(self):
            self._char_cache = CharacteristicCacheMemory()
            self.pairings = {}

    controller = Controller()
    state = {}

    async def run_setup(connection, machine):
        request, expected = machine.send(None)
        while True:
            try:
                response = await connection.post_tlv("/pair-setup", body=request, expected=expected)
                request, expected = machine.send(response)
            except StopIteration as result:
                return result.value

    async def pair(pin):
        """Pair-setup as aiohomekit's IpDiscovery does it, then a pairing for the session."""
        connection = HomeKitConnection(None, [host], port)
        try:
            await connection.ensure_connection()
            salt, public_key = await run_setup(connection, perform_pair_setup_part1(False))
            data = await run_setup(
                connection, perform_pair_setup_part2(pin, str(uuid.uuid4()), salt, public_key)
            )
        finally:
            await connection.close()
        data.update({"AccessoryIP": host, "AccessoryIPs": [host], "AccessoryPort": port, "Connection": "IP"})
        pairing = IpPairing(controller, data)
        received = pairing.event_received

        def on_event(event):
            at = time.monotonic_ns()  # first thing: the event's arrival
            values = format_characteristic_list(event)
            say({"event": {f"{aid}.{iid}": value.get("value") for (aid, iid), value in values.items()}, "at": at})
            received(event)

        pairing.event_received = on_event
        state["data"] = data
        state["pairing"] = pairing
        return True

    async def accessories():
        """One /accessories read; each accessory's name -> [aid, iid of its On]."""
        found = {}
        listed = await state["pairing"].list_accessories_and_characteristics()
        for accessory in listed:
            name, on = None, None
            for service in accessory["services"]:
                for char in service["characteristics"]:
                    kind = short_type(char["type"])
                    if kind == "23" and short_type(service["type"]) == "3E":
                        name = char.get("value")
                    if kind == "25" and on is None:
                        on = char["iid"]
            if name is not None:
                found[name] = [accessory["aid"], on]
        return {"count": len(listed), "ids": found}

    async def verify(runs):
        """Connect and pair-verify, each on a new connection, closed after: nanoseconds each."""
        times = []
        for _ in range(runs):
            connection = SecureHomeKitConnection(None, state["data"])
            begun = time.monotonic_ns()
            await connection.ensure_connection()
            times.append(time.monotonic_ns() - begun)
            await connection.close()
        return times

    async def handle(command):
        cmd = command["cmd"]
        if cmd == "pair":
            return await pair(command["pin"])
        pairing = state["pairing"]
        if cmd == "accessories":
            return await accessories()
        if cmd == "verify":
            return await verify(command["runs"])
        if cmd == "write":
            # The time just before the put, and when the accessory's response was in.
            await pairing._ensure_connected()
            at = time.monotonic_ns()
            await pairing.put_characteristics([(command["aid"], command["iid"], command["value"])])
            return [at, time.monotonic_ns()]
        if cmd == "subscribe":
            await pairing.subscribe([(command["aid"], command["iid"])])
            return True
        raise ValueError("unknown command " + cmd)

    async def main():
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        say({"ready": os.getpid()})
        while line := await reader.readline():
            try:
                say({"ok": await handle(json.loads(line))})
            except Exception as error:  # every failure is an answer, named by its type
                say({"ok": None, "error": type(error).__name__, "message": str(error)})
        if "pairing" in state:
            await state["pairing"].close()

    asyncio.run(main())


if __name__ == "__main__":
    role = sys.argv[1]
    if role == "accessory":
        run_accessory(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif role == "controller":
        run_controller(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit("usage: homekit_bench.py accessory PORT COUNT STATE_FILE SETUP_CODE | controller HOST PORT")
