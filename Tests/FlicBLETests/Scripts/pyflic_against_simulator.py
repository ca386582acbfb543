"""Runs pyflic-ble's real client (FlicClient) as the central against patchbay's simulated Flic 2.

pyflic-ble gets its BLE link from one place: `establish_connection` (bleak-retry-connector),
imported into pyflic_ble.client. This script replaces it (and `close_stale_connections_by_address`)
with a stand-in whose GATT writes and notifications travel over a Unix socket pair to the
FlicBLEButtonHost executable, which hosts SimulatedFlicButton. Everything above that, pyflic-ble's
pairing, quick verify, init, requests and event parsing, is pyflic-ble's own code, unchanged.

The simulator is signed by a test factory key, which no real central trusts. The script
monkeypatches pyflic-ble's trusted Flic 2 key (pyflic_ble.handlers.flic2.FLIC2_ED25519_PUBLIC_KEY)
to the simulator's test key, and first shows that with the real key pyflic-ble refuses it.

Usage: python pyflic_against_simulator.py PATH/TO/FlicBLEButtonHost   (Python >= 3.12, pyflic-ble installed)
Exits 0 when every check passed.
"""

import asyncio
import logging
import socket
import subprocess
import sys

import pyflic_ble
import pyflic_ble.client as flic_client
import pyflic_ble.handlers.flic2 as flic2_handler
from pyflic_ble import FlicClient
from pyflic_ble.const import FLIC_NOTIFY_CHAR_UUID, FLIC_WRITE_CHAR_UUID

ADDRESS = "06:07:08:09:0A:0B"


class SimulatorProcess:
    """The Swift host of the simulated button, reached over one end of a socket pair."""

    def __init__(self, executable: str, model: str | None = None) -> None:
        self.sock, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        arguments = [executable] + (["--model", model] if model else [])
        self.process = subprocess.Popen(arguments, stdin=child, stdout=child)
        child.close()
        self.reader = self.sock.makefile("r", encoding="ascii")
        self.notify = None  # pyflic-ble's notification callback while connected

    def command(self, line: str) -> list[str]:
        self.sock.sendall((line + "\n").encode("ascii"))
        answers = []
        while True:
            answer = self.reader.readline().strip()
            if answer == "ok":
                return answers
            if answer.startswith("error") or answer == "":
                raise RuntimeError(f"simulator: {line!r} -> {answer!r}")
            if answer.startswith("notify "):
                data = bytearray(bytes.fromhex(answer[7:]))
                if self.notify is not None:
                    self.notify(None, data)
            else:
                answers.append(answer)

    def close(self) -> None:
        self.reader.close()
        self.sock.close()
        self.process.wait(timeout=5)


class StandInBleakClient:
    """What pyflic-ble uses of a BleakClient: GATT writes, notifications, disconnect."""

    def __init__(self, sim: SimulatorProcess, disconnected_callback) -> None:
        self.sim = sim
        self.disconnected_callback = disconnected_callback
        self.is_connected = True
        self.mtu_size = 140
        sim.command("connect")

    async def start_notify(self, uuid, callback) -> None:
        assert uuid == FLIC_NOTIFY_CHAR_UUID, uuid
        self.sim.notify = callback

    async def write_gatt_char(self, uuid, data, response=None) -> None:
        assert uuid == FLIC_WRITE_CHAR_UUID, uuid
        self.sim.command("write " + bytes(data).hex())
        await asyncio.sleep(0)

    async def disconnect(self) -> None:
        if self.is_connected:
            self.is_connected = False
            self.sim.notify = None
            self.sim.command("disconnect")
            if self.disconnected_callback:
                self.disconnected_callback(self)


def install_stand_in(sim: SimulatorProcess) -> None:
    async def establish_connection(client_class, device, name, disconnected_callback=None, **_kwargs):
        return StandInBleakClient(sim, disconnected_callback)

    async def close_stale_connections_by_address(_address) -> None:
        return None

    flic_client.establish_connection = establish_connection
    flic_client.close_stale_connections_by_address = close_stale_connections_by_address


class Checks:
    def __init__(self) -> None:
        self.failed = 0
        self.passed = 0

    def expect(self, what: str, ok: bool, detail: object = "") -> None:
        print(f"  [{'PASS' if ok else 'FAIL'}] {what}" + (f": {detail}" if detail != "" else ""))
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def finish(self, sim: SimulatorProcess) -> int:
        """Ends the simulator, prints the count; the script's exit status."""
        sim.close()
        print(f"\n{self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 else 1


async def main(executable: str) -> int:
    logging.basicConfig(level=logging.WARNING)
    checks = Checks()
    sim = SimulatorProcess(executable)
    install_stand_in(sim)
    device = object()  # pyflic-ble only checks that a BLEDevice was given
    test_key = bytes.fromhex(sim.command("factory-key")[0].split()[1])
    print(f"pyflic-ble {__import__('importlib.metadata').metadata.version('pyflic-ble')} from {pyflic_ble.__file__}")
    print(f"simulator test factory key: {test_key.hex()}")

    print("\n1. pyflic-ble, trusting only Shortcut Labs' real factory key, tries to pair with the simulator:")
    client = FlicClient(ADDRESS, ble_device=device)
    await client.connect()
    try:
        await client.full_verify_pairing()
        checks.expect("refused (the simulator is not a genuine button)", False, "it paired!")
    except ValueError as error:
        checks.expect("refused (the simulator is not a genuine button)", "signature" in str(error), error)
    await client.disconnect()

    print("\n2. Trusting the simulator's test key (monkeypatched FLIC2_ED25519_PUBLIC_KEY), full verify:")
    flic2_handler.FLIC2_ED25519_PUBLIC_KEY = test_key
    client = FlicClient(ADDRESS, ble_device=device)
    await client.connect()
    pairing_id, pairing_key, serial, battery, _sig_bits, button_uuid, firmware = await client.full_verify_pairing()
    print(f"  paired: pairing_id={pairing_id:#010x} key={pairing_key.hex()} serial={serial} "
          f"battery_raw={battery} uuid={button_uuid.hex()} firmware={firmware}")
    checks.expect("serial number from FullVerifyResponse2", serial == "BG00-C00001", serial)
    checks.expect("simulator stored the pairing", "pairings=1" in sim.command("state")[0], sim.command("state")[0])
    await client.disconnect()

    print("\n3. Reconnect with the stored pairing: FlicClient.start() (quick verify, init events, battery, firmware, name):")
    client = FlicClient(ADDRESS, ble_device=device, pairing_id=pairing_id, pairing_key=pairing_key, serial_number=serial)
    events: list[tuple[str, dict]] = []
    client.on_button_event = lambda kind, data: events.append((kind, data))
    await client.start()
    state = client.state
    print(f"  state: connected={state.connected} battery={state.battery_voltage:.3f} V "
          f"firmware={state.firmware_version} name={state.device_name!r}")
    checks.expect("quick verify and start succeeded", state.connected)
    checks.expect("battery about 3.0 V", state.battery_voltage is not None and abs(state.battery_voltage - 3.0) < 0.01,
                  state.battery_voltage)
    checks.expect("firmware version 10", state.firmware_version == 10, state.firmware_version)
    name, stamp = await client.set_name("Bedside")
    print(f"  set_name -> {name!r} (timestamp field {stamp})")
    checks.expect("name set", name == "Bedside", name)

    print("\n4. A person clicks, double-clicks and holds:")
    for gesture, expected in [("click", ["down", "up", "click"]),
                              ("double-click", ["down", "up", "down", "double_click"]),
                              ("hold", ["down", "hold", "up"])]:
        events.clear()
        sim.command(f"press {gesture}")
        await asyncio.sleep(0)
        kinds = [kind for kind, _ in events]
        print(f"  {gesture}: pyflic-ble reported {kinds} "
              f"(queued flags {[data['was_queued'] for _, data in events]})")
        checks.expect(f"{gesture} seen as {expected}", kinds == expected, kinds)
    await client.stop()

    print("\n5. Presses while disconnected are queued with their timestamps and delivered at the next start():")
    sim.command("press click")
    sim.command("advance 30")
    client = FlicClient(ADDRESS, ble_device=device, pairing_id=pairing_id, pairing_key=pairing_key, serial_number=serial)
    events = []
    client.on_button_event = lambda kind, data: events.append((kind, data))
    await client.start()
    kinds = [(kind, data["was_queued"]) for kind, data in events]
    print(f"  pyflic-ble reported {kinds}")
    checks.expect("queued click delivered, marked queued", kinds == [("down", True), ("up", True), ("click", True)],
                  kinds)
    await client.stop()

    print("\n6. The owner resets the button; pyflic-ble's next quick verify is refused:")
    sim.command("reset")
    client = FlicClient(ADDRESS, ble_device=device, pairing_id=pairing_id, pairing_key=pairing_key, serial_number=serial)
    try:
        await client.start()
        checks.expect("quick verify refused", False, "start() succeeded")
    except Exception as error:  # pyflic-ble does not handle QuickVerifyNegativeResponse: it times out
        checks.expect("quick verify refused", True, f"{type(error).__name__}: {error}")
    await client.stop()

    return checks.finish(sim)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
