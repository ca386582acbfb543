"""Runs pyflic-ble's real client (FlicClient, its TwistProtocolHandler) against patchbay's simulated
Flic Twist (FlicBLEButtonHost --model twist): the Twist's own service and characteristics, its
opcode table without frame header, full verify with the Twist's key derivation, quick verify,
InitButtonEventsTwistRequest with 13 modes, push-button events with their mode, and rotation
reports, all decoded by pyflic-ble's own code (its rotate tracker included). The link stand-in is
that of pyflic_against_simulator.py; the simulated Twist is signed by a test key of its own, which
the script puts in place of pyflic-ble's Twist key after showing that the real key refuses it.

Usage: python pyflic_twist_against_simulator.py PATH/TO/FlicBLEButtonHost   (Python >= 3.12)
Exits 0 when every check passed.
"""

import asyncio
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyflic_ble.handlers.twist as twist_handler  # noqa: E402
from pyflic_ble import FlicClient  # noqa: E402
from pyflic_ble.const import TWIST_RX_CHAR_UUID, TWIST_TX_CHAR_UUID, DeviceType, PushTwistMode  # noqa: E402

import pyflic_against_simulator as base  # noqa: E402
from pyflic_against_simulator import ADDRESS, Checks, SimulatorProcess  # noqa: E402


class TwistBleakClient(base.StandInBleakClient):
    """The Twist's characteristics: pyflic-ble must use 00c90001 / 00c90002."""

    async def start_notify(self, uuid, callback) -> None:
        assert uuid == TWIST_RX_CHAR_UUID, uuid
        self.sim.notify = callback

    async def write_gatt_char(self, uuid, data, response=None) -> None:
        assert uuid == TWIST_TX_CHAR_UUID, uuid
        self.sim.command("write " + bytes(data).hex())
        await asyncio.sleep(0)


def install_twist_stand_in(sim: SimulatorProcess) -> None:
    async def establish_connection(client_class, device, name, disconnected_callback=None, **_kwargs):
        return TwistBleakClient(sim, disconnected_callback)

    async def close_stale_connections_by_address(_address) -> None:
        return None

    base.flic_client.establish_connection = establish_connection
    base.flic_client.close_stale_connections_by_address = close_stale_connections_by_address


async def main(executable: str) -> int:
    logging.basicConfig(level=logging.WARNING)
    checks = Checks()
    sim = SimulatorProcess(executable, model="twist")
    install_twist_stand_in(sim)
    device = object()

    print("1. With Shortcut Labs' real Twist key, pyflic-ble refuses the simulator's test signature:")
    client = FlicClient(ADDRESS, ble_device=device, device_type=DeviceType.TWIST)
    await client.connect()
    try:
        await client.full_verify_pairing()
        checks.expect("refused", False, "pairing succeeded with the real key")
    except Exception as error:  # noqa: BLE001
        checks.expect("refused", "signature" in str(error), error)
    await client.disconnect()

    twist_handler.TWIST_ED25519_PUBLIC_KEY = bytes.fromhex(sim.command("factory-key")[0].split()[1])

    print("\n2. With the simulator's Twist test key, pyflic-ble pairs (full verify, 117-byte response 1):")
    client = FlicClient(ADDRESS, ble_device=device, device_type=DeviceType.TWIST)
    await client.connect()
    pairing_id, pairing_key, serial, battery, *_ = await client.full_verify_pairing()
    print(f"  paired: pairing_id={pairing_id:#010x} serial={serial} battery={battery}")
    checks.expect("simulator stored the pairing", "pairings=1" in sim.command("state")[0])
    checks.expect("serial says Twist (T)", serial.startswith("T"), serial)
    await client.disconnect()

    print("\n3. start(): quick verify, InitButtonEventsTwistRequest, battery in millivolts:")
    client = FlicClient(ADDRESS, ble_device=device, pairing_id=pairing_id, pairing_key=pairing_key,
                        serial_number=serial)
    buttons: list[tuple[str, dict]] = []
    rotations: list[tuple[str, dict]] = []
    selectors: list[int] = []
    client.on_button_event = lambda kind, data: buttons.append((kind, data))
    client.on_rotate_event = lambda kind, data: rotations.append((kind, data))
    client.on_selector_change = lambda index, _data: selectors.append(index)
    await client.start()
    checks.expect("connected with the Twist handler", client.state.connected and client.is_twist)
    checks.expect("battery 3.0 V", client.state.battery_voltage == 3.0, client.state.battery_voltage)

    print("\n4. The push button, as pyflic-ble's Twist parser reads its codes:")
    for gesture, expected in [
        ("click", ["down", "up", "click"]),
        ("double-click", ["down", "up", "down", "double_click"]),
        ("hold", ["down", "hold", "up"]),
    ]:
        buttons.clear()
        sim.command(f"press {gesture}")
        await asyncio.sleep(0)
        got = [kind for kind, _ in buttons]
        print(f"  {gesture}: pyflic-ble reported {got}")
        checks.expect(f"{gesture} seen as {expected}", got == expected, got)

    print("\n5. The dial (pyflic-ble's default mode: 1 % steps of slot 0's position):")
    for units, steps, kind, percent in [
        ("+4096", 0, None, 100 / 12),  # the first report only sets pyflic-ble's reference
        ("+4096", 8, "twist_increment", 200 / 12),
        ("-98304", 16, "twist_decrement", 0.0),  # past the bottom: the Twist stops at 0
        ("+24576", 50, "twist_increment", 50.0),
    ]:
        rotations.clear()
        sim.command(f"twist {units}")
        await asyncio.sleep(0)
        kinds = {kind for kind, _ in rotations}
        last = rotations[-1][1]["mode_percentage"] if rotations else None
        print(f"  twist {units}: {len(rotations)} events {sorted(kinds)}, mode_percentage {last}")
        checks.expect(f"twist {units}: {steps} steps", len(rotations) == steps, len(rotations))
        if kind:
            checks.expect(f"twist {units}: at {percent:.2f} %", kinds == {kind} and abs(last - percent) < 0.01, last)
    await client.stop()

    print("\n6. Selector mode: push and turn picks a slot, each slot has its own position:")
    client = FlicClient(ADDRESS, ble_device=device, pairing_id=pairing_id, pairing_key=pairing_key,
                        serial_number=serial, push_twist_mode=PushTwistMode.SELECTOR)
    buttons.clear()
    rotations.clear()
    client.on_button_event = lambda kind, data: buttons.append((kind, data))
    client.on_rotate_event = lambda kind, data: rotations.append((kind, data))
    client.on_selector_change = lambda index, _data: selectors.append(index)
    await client.start()
    sim.command("push-twist +12288")
    await asyncio.sleep(0)
    checks.expect("the simulator's slot is 3", "slot=3" in sim.command("state")[0], sim.command("state")[0])
    selectors.clear()
    buttons.clear()
    sim.command("press click")
    await asyncio.sleep(0)
    print(f"  click after push-twist +12288: selector changes {selectors}, events {[k for k, _ in buttons]}")
    checks.expect("pyflic-ble saw the selector change to 3", selectors == [3], selectors)
    checks.expect("the click carries mode 3", buttons and buttons[-1][1].get("twist_mode_index") == 3, buttons)
    rotations.clear()
    sim.command("twist +8192")
    await asyncio.sleep(0)
    last = rotations[-1][1] if rotations else {}
    print(f"  twist +8192 in slot 3: {[k for k, _ in rotations]} mode {last.get('twist_mode_index')} "
          f"at {last.get('mode_percentage')} %")
    checks.expect("rotation in mode 3 at 16.67 %", last.get("twist_mode_index") == 3
                  and abs(last.get("mode_percentage", -1) - 200 / 12) < 0.01, last)
    await client.stop()

    return checks.finish(sim)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
