"""A HomeKit controller for the HAP and homekit tests (PatchbayTestSupport's
AiohomekitController): aiohomekit 4.0.1 (the library Home Assistant uses), driven line by line. Each stdin line is a JSON command; each answer is one JSON line
{"ok": ...} or {"error": "<ExceptionName>", "message": ...}; events arrive as {"event": ...}
lines at any time. No mDNS: the accessory's host and port are given on the command line.

Usage: aiohomekit_controller.py HOST PORT
"""

import asyncio
import json
import logging
import sys
import time
import uuid

from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip import connection as ip_connection
from aiohomekit.controller.ip import pairing as ip_pairing
from aiohomekit.controller.ip.connection import HomeKitConnection
from aiohomekit.controller.ip.pairing import IpPairing, format_characteristic_list
from aiohomekit.protocol import perform_pair_setup_part1, perform_pair_setup_part2
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

HOST, PORT = sys.argv[1], int(sys.argv[2])

# aiohomekit gives an accessory 30 s to answer a request and 10 s to connect and pair-verify,
# which suits a home network but not a debug-build hub beside a full test run on 2 busy cores.
# The tests check what the accessory answers, not how fast: every request gets REQUEST_SECONDS
# and every connection CONNECT_SECONDS (the test waits 300 s for an answer to each command).
REQUEST_SECONDS = 120
CONNECT_SECONDS = 120
_expire_request = ip_connection.InsecureHomeKitProtocol._handle_timeout


def _handle_timeout(self, future):
    """aiohomekit's 30 s are up: give the request the rest of REQUEST_SECONDS."""
    if not future.done():
        self.loop.call_later(REQUEST_SECONDS - 30, _expire_request, self, future)


ip_connection.InsecureHomeKitProtocol._handle_timeout = _handle_timeout
_connect_timeout = ip_pairing.asyncio_timeout
ip_pairing.asyncio_timeout = lambda seconds: _connect_timeout(max(seconds, CONNECT_SECONDS))

# aiohomekit's warnings and errors go to stderr, which the test merges into the output it shows
# when an answer is missing or wrong.
logging.basicConfig(
    level=logging.WARNING, stream=sys.stderr, format="aiohomekit_controller %(levelname)s %(name)s: %(message)s"
)


class Controller:
    """What IpPairing needs of a controller: a characteristic cache."""

    def __init__(self):
        self._char_cache = CharacteristicCacheMemory()
        self.pairings = {}


def say(obj):
    print(json.dumps(obj), flush=True)


controller = Controller()
pairings = {}  # name -> IpPairing
started = {}  # name -> HomeKitConnection with a pair-setup in progress


async def run_setup(connection, state_machine):
    request, expected = state_machine.send(None)
    while True:
        try:
            response = await connection.post_tlv("/pair-setup", body=request, expected=expected)
            request, expected = state_machine.send(response)
        except StopIteration as result:
            return result.value


async def pair(pin):
    """Pair-setup exactly as aiohomekit's IpDiscovery does it."""
    connection = HomeKitConnection(None, [HOST], PORT)
    try:
        await connection.ensure_connection()
        salt, public_key = await run_setup(connection, perform_pair_setup_part1(False))
        data = await run_setup(connection, perform_pair_setup_part2(pin, str(uuid.uuid4()), salt, public_key))
    finally:
        await connection.close()
    data.update({"AccessoryIP": HOST, "AccessoryIPs": [HOST], "AccessoryPort": PORT, "Connection": "IP"})
    return data


def open_pairing(name, data):
    pairing = IpPairing(controller, data)
    # Only the accessory's EVENT messages (aiohomekit's listeners also hear its own writes).
    received = pairing.event_received

    def on_event(event, name=name):
        say({"event": name, "values": encode(format_characteristic_list(event))})
        received(event)

    pairing.event_received = on_event
    # Count the sessions the accessory closed (aiohomekit reconnects at once by itself).
    pairing.disconnects = 0
    lost = pairing.connection._connection_lost

    def on_lost(exception):
        pairing.disconnects += 1
        lost(exception)

    pairing.connection._connection_lost = on_lost
    pairings[name] = pairing
    return pairing


def encode(result):
    """(aid, iid) keys as "aid.iid"."""
    return {f"{aid}.{iid}": value for (aid, iid), value in result.items()}


def ids(command):
    return [tuple(item) for item in command["ids"]]


async def handle(command):
    cmd = command["cmd"]
    name = command.get("name", "admin")
    if cmd == "pair":
        data = await pair(command["pin"])
        open_pairing(name, data)
        return data
    if cmd == "pair_start":
        # Pair-setup M1 only, on a connection left open: a pairing in progress.
        connection = HomeKitConnection(None, [HOST], PORT)
        await connection.ensure_connection()
        await run_setup(connection, perform_pair_setup_part1(False))
        started[name] = connection
        return True
    if cmd == "pair_abandon":
        await started.pop(name).close()
        return True
    if cmd == "load":
        open_pairing(name, command["data"])
        return True
    pairing = pairings[name]
    if cmd in ("get_raw", "put_raw", "prepare", "raw_write", "subscribe"):
        await pairing._ensure_connected()
    if cmd == "verify":
        # Connect and pair-verify only; the seconds it took.
        begun = time.monotonic()
        await pairing._ensure_connected()
        return time.monotonic() - begun
    if cmd == "accessories":
        return await pairing.list_accessories_and_characteristics()
    if cmd == "get":
        return encode(await pairing.get_characteristics(ids(command)))
    if cmd == "put":
        return encode(await pairing.put_characteristics([tuple(item) for item in command["values"]]))
    if cmd == "put_raw":
        # A PUT /characteristics body as given (for "r", timed writes and "ev").
        response = await pairing.connection.put_json("/characteristics", command["body"])
        return response
    if cmd == "get_raw":
        return await pairing.connection.get_json(command["path"])
    if cmd == "prepare":
        return await pairing.connection.put_json("/prepare", command["body"])
    if cmd == "subscribe":
        return encode(await pairing._update_subscriptions(ids(command), True))
    if cmd == "list_pairings":
        return await pairing.list_pairings()
    if cmd == "add_controller":
        # A second controller: its own key pair and pairing id, added by this one.
        key = ed25519.Ed25519PrivateKey.generate()
        public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
        private = key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        ).hex()
        identifier = str(uuid.uuid4())
        await pairing.add_pairing(identifier, public, command.get("permissions", "User"))
        data = dict(pairing.pairing_data)
        data.update({"iOSPairingId": identifier, "iOSDeviceLTSK": private, "iOSDeviceLTPK": public})
        return data
    if cmd == "remove_pairing":
        return await pairing.remove_pairing(command["id"])
    if cmd == "wait_closed":
        # Whether the accessory closed this controller's session ("count" times so far), within
        # "within" seconds (default 240; the test waits 300 for any answer).
        deadline = time.monotonic() + command.get("within", 240)
        while pairing.disconnects < command.get("count", 1):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.05)
        return True
    if cmd == "disconnects":
        # How many times the accessory closed this controller's session so far.
        return pairing.disconnects
    if cmd == "raw_write":
        # Bytes straight onto the (encrypted) session's socket, then wait for the close.
        pairing.connection.transport.write(bytes.fromhex(command["hex"]))
        return True
    if cmd == "close":
        await pairing.close()
        return True
    raise ValueError("unknown command " + cmd)


async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)  # a 1 MB body comes in one command
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    say({"ready": True})
    while line := await reader.readline():
        command = json.loads(line)
        try:
            say({"ok": await handle(command)})
        except Exception as error:  # every failure is an answer, named by its type
            say({"error": type(error).__name__, "message": str(error)})
    for pairing in pairings.values():
        await pairing.close()


asyncio.run(main())
