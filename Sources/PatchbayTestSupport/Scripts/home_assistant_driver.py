"""Talks to a running Home Assistant for the mqtt tests (PatchbayTestSupport's
HomeAssistantUnderTest), through HA's own HTTP and websocket APIs, as the frontend does.
Runs with the Python of HA's virtual environment (aiohttp comes with HA).

Each stdin line is a JSON command; each answer is one JSON line {"ok": ...} or
{"error": "<kind>", "message": ...}. Commands:
  {"onboard": true}                       creates the owner (onboarding; on a restarted HA,
                                          which is onboarded, logs the owner in), gets an access
                                          token, opens the websocket; answers the user id
  {"rest": {"method": M, "path": P, "body": B}}  one REST call (the automation editor's save)
  {"mqtt": {"broker": H, "port": P}}      adds the MQTT integration (config flow over REST)
  {"ws": {...}}                           one websocket command (id added); answers its result
  {"subscribe": {...}}                    a websocket subscription (subscribe_trigger, ...);
                                          answers its id, under which its events are kept
  {"events": ID}                          the events of subscription ID so far

Usage: home_assistant_driver.py BASE_URL   (http://127.0.0.1:PORT)
"""

import asyncio
import json
import sys

import aiohttp

BASE = sys.argv[1].rstrip("/")
CLIENT_ID = BASE + "/"


def say(obj):
    print(json.dumps(obj), flush=True)


class Failure(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Driver:
    def __init__(self, session):
        self.session = session
        self.token = None
        self.socket = None
        self.next_id = 1
        self.pending = {}  # message id -> future of its result
        self.events = {}  # subscription id -> its events, oldest first
        self.reader = None

    async def onboard(self):
        # HA logs "initialized" just before its HTTP server listens: wait for the server.
        deadline = asyncio.get_running_loop().time() + 120
        while True:
            try:
                async with self.session.get(BASE + "/api/onboarding") as response:
                    # A fully onboarded HA has no onboarding views (404).
                    body = await response.read()
                    steps = json.loads(body) if response.status == 200 else [{"step": "user", "done": True}]
                    break
            except aiohttp.ClientConnectorError:
                if asyncio.get_running_loop().time() > deadline:
                    raise
                await asyncio.sleep(0.2)
        if any(step.get("step") == "user" and step.get("done") for step in steps):
            code = await self.login()
        else:
            code = await self.create_owner()
        await self.connect(code)
        user = await self.ws({"type": "auth/current_user"})
        return user["id"]

    async def login(self):
        """The login form's flow, for an HA that was onboarded before it restarted."""
        async with self.session.post(
            BASE + "/auth/login_flow",
            json={"client_id": CLIENT_ID, "handler": ["homeassistant", None], "redirect_uri": CLIENT_ID},
        ) as response:
            body = await response.text()
            if response.status != 200:
                raise Failure("login", f"POST /auth/login_flow: {response.status} {body}")
            flow = json.loads(body)["flow_id"]
        async with self.session.post(
            BASE + "/auth/login_flow/" + flow,
            json={"client_id": CLIENT_ID, "username": "patchbay", "password": "patchbay-test-password"},
        ) as response:
            body = await response.text()
            result = json.loads(body) if response.status == 200 else {}
            if result.get("type") != "create_entry":
                raise Failure("login", f"POST /auth/login_flow/{flow}: {response.status} {body}")
            return result["result"]

    async def create_owner(self):
        async with self.session.post(
            BASE + "/api/onboarding/users",
            json={
                "client_id": CLIENT_ID,
                "name": "Patchbay Test",
                "username": "patchbay",
                "password": "patchbay-test-password",
                "language": "en",
            },
        ) as response:
            body = await response.text()
            if response.status != 200:
                raise Failure("onboarding", f"POST /api/onboarding/users: {response.status} {body}")
            return json.loads(body)["auth_code"]

    async def connect(self, code):
        async with self.session.post(
            BASE + "/auth/token",
            data={"grant_type": "authorization_code", "code": code, "client_id": CLIENT_ID},
        ) as response:
            body = await response.text()
            if response.status != 200:
                raise Failure("token", f"POST /auth/token: {response.status} {body}")
            self.token = json.loads(body)["access_token"]
        self.socket = await self.session.ws_connect(BASE + "/api/websocket", max_msg_size=0)
        hello = await self.socket.receive_json()
        if hello.get("type") != "auth_required":
            raise Failure("websocket", f"expected auth_required, got {hello}")
        await self.socket.send_json({"type": "auth", "access_token": self.token})
        answer = await self.socket.receive_json()
        if answer.get("type") != "auth_ok":
            raise Failure("websocket", f"authentication refused: {answer}")
        self.reader = asyncio.create_task(self.read())

    async def rest(self, method, path, payload=None):
        headers = {"Authorization": "Bearer " + self.token}
        async with self.session.request(method, BASE + path, json=payload, headers=headers) as response:
            body = await response.text()
            if response.status != 200:
                raise Failure("http", f"{method} {path}: {response.status} {body}")
            return json.loads(body)

    async def mqtt(self, broker, port):
        """The MQTT integration's config flow, the steps the UI takes: 'user' shows the
        broker form, submitting it tests the connection and creates the entry."""
        step = await self.rest("POST", "/api/config/config_entries/flow", {"handler": "mqtt"})
        for _ in range(5):
            if step.get("type") == "create_entry":
                return step["result"]["entry_id"] if isinstance(step.get("result"), dict) else step.get("result")
            if step.get("type") != "form":
                raise Failure("mqtt", f"config flow ended with {step}")
            if step.get("errors"):
                raise Failure("mqtt", f"config flow refused the broker: {step}")
            data = {"broker": broker, "port": port} if step["step_id"] == "broker" else {}
            step = await self.rest("POST", "/api/config/config_entries/flow/" + step["flow_id"], data)
        raise Failure("mqtt", f"config flow did not finish: {step}")

    async def read(self):
        """Results to their waiting command, events to their subscription."""
        async for frame in self.socket:
            if frame.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(frame.data)
            for message in data if isinstance(data, list) else [data]:
                if message.get("type") == "event":
                    self.events.setdefault(message.get("id"), []).append(message.get("event"))
                elif message.get("type") == "result":
                    future = self.pending.pop(message.get("id"), None)
                    if future is not None and not future.done():
                        future.set_result(message)
        for future in self.pending.values():
            if not future.done():
                future.set_exception(Failure("websocket", "Home Assistant closed the websocket"))

    async def ws(self, message, subscribe=False):
        if self.socket is None:
            raise Failure("websocket", "not connected (onboard first)")
        message = dict(message)
        message["id"] = self.next_id
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[message["id"]] = future
        if subscribe:
            self.events[message["id"]] = []
        await self.socket.send_json(message)
        # Under the Swift side's 300 s, so a missing answer comes back as this error, with its command.
        try:
            answer = await asyncio.wait_for(future, 240)
        except asyncio.TimeoutError:
            self.pending.pop(message["id"], None)
            raise Failure("timeout", f"no answer from Home Assistant within 240 s to {json.dumps(message)[:300]}")
        if not answer.get("success"):
            error = answer.get("error") or {}
            raise Failure(error.get("code", "failed"), error.get("message", json.dumps(answer)))
        return message["id"] if subscribe else answer.get("result")


async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=300)) as session:
        driver = Driver(session)
        say({"ready": True})
        while line := await reader.readline():
            if not line.strip():
                continue
            try:
                command = json.loads(line)
                if "onboard" in command:
                    result = await driver.onboard()
                elif "mqtt" in command:
                    result = await driver.mqtt(command["mqtt"]["broker"], command["mqtt"]["port"])
                elif "rest" in command:
                    rest = command["rest"]
                    result = await driver.rest(rest["method"], rest["path"], rest.get("body"))
                elif "ws" in command:
                    result = await driver.ws(command["ws"])
                elif "subscribe" in command:
                    result = await driver.ws(command["subscribe"], subscribe=True)
                elif "events" in command:
                    result = driver.events.get(command["events"], [])
                else:
                    raise Failure("usage", f"unknown command {command}")
                say({"ok": result})
            except Failure as failure:
                say({"error": failure.kind, "message": str(failure)})
            except Exception as error:  # noqa: BLE001 - every failure is an answer
                say({"error": type(error).__name__, "message": str(error)})


asyncio.run(main())
