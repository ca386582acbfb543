'''A BlueZ stand-in for Flic 2 buttons: python-dbusmock's bluez5 template plus the GATT objects
BlueZ exports for a connected Flic 2, bridged to simulated buttons (FlicBLEButtonHost, one
subprocess each, over its stdin/stdout line protocol).

Run with Debian's python3 (python3-dbusmock) on a bus of the test's own:
    DBUS_SYSTEM_BUS_ADDRESS=unix:path=... python3 -m dbusmock --system \
        -t flic_bluez.py -p '{"button_host": "/path/to/FlicBLEButtonHost"}'

It is no kinder than BlueZ (doc/org.bluez.*.rst):
- a device object appears only while the adapter discovers and the button advertises (after a
  press, or held for pairing) within range; Connect to a button out of range fails
  (org.bluez.Error.Failed), as BlueZ's does after its page timeout;
- the GATT objects (service000c/char000d write, char000f notify) exist only while connected:
  a disconnect removes them (InterfacesRemoved) and sets Connected and ServicesResolved false;
- notifications arrive only after StartNotify, as PropertiesChanged of the characteristic's Value;
- WriteValue to a disconnected device fails with org.bluez.Error.NotConnected;
- a bluetoothd restart drops the org.bluez name (and every connection and device with it);
- notifications go out in the order the button sent them: answers to a write and presses share
  one queue per button, emptied from the main loop (a press must never overtake an answer).

Control channel: one command a line on standard input, each answered "ok" or "error ...":
    add ADDRESS [duo|twist]      a button, a Flic 2, a Flic Duo or a Flic Twist (new, in pairing mode
                                 until paired; a Twist advertises and serves its own service UUID)
    press ADDRESS GESTURE        click|double-click|hold; a Duo also swipe-left|-right|-up|-down,
                                 and small-GESTURE on its small button
    twist ADDRESS [+-]UNITS      a Twist's dial turned (1/49152 turn; 4096 is a twelfth)
    push-twist ADDRESS [+-]UNITS the dial turned while pushed
    hold-for-pairing ADDRESS     7 s hold: advertises and accepts a new pairing
    reset ADDRESS                its owner resets it (pairings forgotten)
    advance ADDRESS SECONDS      the button's clock moves on (queued presses age)
    out-of-range ADDRESS | in-range ADDRESS
    remove-adapter | add-adapter | power-off | power-on
    stop-bluetoothd | start-bluetoothd
    state ADDRESS                the simulator's state line
    garbage ADDRESS HEX          a notification of these bytes after the link's frame header byte,
                                 as if a packet arrived mangled
    pair-in-process ADDRESS      the simulator pairs with a central of its own (full verify, its test
                                 key) and prints "pairing FIELD=VALUE ..." for the plugin's pairing
                                 file: a release build, which trusts no test key, then only quick-verifies

With the parameter "timestamps": true each notification is logged to standard error at the moment
it is emitted, as "notified ADDRESS OPCODE-BYTE CLOCK_MONOTONIC-NS" (the benchmark reads it).
'''

import os
import subprocess
import sys
import time

import dbus
from gi.repository import GLib

from dbusmock import OBJECT_MANAGER_IFACE, mockobject
from dbusmock.templates import bluez5

BUS_NAME = 'org.bluez'
MAIN_OBJ = '/'
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

DEVICE_IFACE = 'org.bluez.Device1'
ADAPTER_IFACE = 'org.bluez.Adapter1'
SERVICE_IFACE = 'org.bluez.GattService1'
CHAR_IFACE = 'org.bluez.GattCharacteristic1'
FLIC_SERVICE = '00420000-8f59-4420-870d-84f3b617e493'
FLIC_WRITE = '00420001-8f59-4420-870d-84f3b617e493'
FLIC_NOTIFY = '00420002-8f59-4420-870d-84f3b617e493'
TWIST_SERVICE = '00c90000-2cbd-4f2a-a725-5ccd960ffb7d'
TWIST_WRITE = '00c90001-2cbd-4f2a-a725-5ccd960ffb7d'
TWIST_NOTIFY = '00c90002-2cbd-4f2a-a725-5ccd960ffb7d'
# (service, write, notify) by model
UUIDS = {
    'flic2': (FLIC_SERVICE, FLIC_WRITE, FLIC_NOTIFY),
    'duo': (FLIC_SERVICE, FLIC_WRITE, FLIC_NOTIFY),
    'twist': (TWIST_SERVICE, TWIST_WRITE, TWIST_NOTIFY),
}
ADAPTER = 'hci0'
ADAPTER_PATH = '/org/bluez/hci0'
# A Flic 2 packet is at most 140 bytes; BlueZ's MTU is the ATT MTU (3 bytes of header more).
ATT_MTU = 143

buttons = {}
state = {'running': True, 'mock': None, 'host': None}


def log(text):
    sys.stderr.write('bluez: ' + text + '\n')
    sys.stderr.flush()


def manager():
    return mockobject.objects['/']


def bluez_error(name, message):
    return dbus.exceptions.DBusException(message, name='org.bluez.Error.' + name)


def emit_changed(path, interface, changes):
    obj = mockobject.objects[path]
    for key, value in changes.items():
        obj.props[interface][key] = value
    obj.EmitSignal(dbus.PROPERTIES_IFACE, 'PropertiesChanged', 'sa{sv}as', [interface, changes, []])


class Button:
    '''One simulated Flic 2 and what BlueZ knows of it.'''

    def __init__(self, address, model='flic2'):
        self.address = address.upper()
        self.model = model
        self.service_uuid, self.write_uuid, self.notify_uuid = UUIDS[model]
        # Notifications waiting for the main loop, in the button's order (see deliver).
        self.outbox = []
        self.flush_scheduled = False
        self.path = ADAPTER_PATH + '/dev_' + self.address.replace(':', '_')
        self.service = self.path + '/service000c'
        self.write_char = self.service + '/char000d'
        self.notify_char = self.service + '/char000f'
        self.in_range = True
        self.advertising = True  # a new button is in pairing mode
        self.connected = False
        self.notifying = False
        self.process = subprocess.Popen(
            [state['host'], '--address', self.address, '--model', model], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=None, text=True, bufsize=1)

    def command(self, line):
        '''Sends one line to the simulator; returns (notifications, other lines).'''
        self.process.stdin.write(line + '\n')
        self.process.stdin.flush()
        notifications, lines = [], []
        while True:
            answer = self.process.stdout.readline()
            if not answer:
                raise RuntimeError('the button simulator ended')
            answer = answer.strip()
            if answer == 'ok':
                return notifications, lines
            if answer.startswith('error'):
                raise RuntimeError(answer)
            if answer.startswith('notify '):
                notifications.append(bytes.fromhex(answer[7:]))
            else:
                lines.append(answer)

    def deliver(self, notifications):
        '''Queues notifications; they go out from the main loop, after the D-Bus answer of the
        write that caused them (as a real button's come after the ATT write), and never ahead of
        ones queued earlier.'''
        for packet in notifications:
            self.header = packet[0:1]
        self.outbox.extend(notifications)
        if self.outbox and not self.flush_scheduled:
            self.flush_scheduled = True
            GLib.idle_add(self.flush)

    def flush(self):
        self.flush_scheduled = False
        notifications, self.outbox = self.outbox, []
        for packet in notifications:
            if self.connected and self.notifying and self.notify_char in mockobject.objects:
                if state.get('timestamps'):
                    log(f'notified {self.address} {packet[0]} {time.monotonic_ns()}')
                emit_changed(self.notify_char, CHAR_IFACE,
                             {'Value': dbus.Array(list(packet), signature='y', variant_level=1)})
            else:
                log(f'{self.address}: a notification nobody is subscribed to was lost')

    def visible(self):
        return self.path in mockobject.objects

    def appear_if_found(self):
        '''BlueZ lists an advertising button while the adapter discovers.'''
        if self.visible() or not (self.in_range and self.advertising) or not adapter_discovering():
            return
        # As BlueZ: with a UUID filter set, only devices advertising one of those UUIDs are listed.
        uuids = [str(u).lower() for u in (state.get('filter') or {}).get('UUIDs', [])]
        if uuids and self.service_uuid not in uuids:
            return
        bluez5.AddDevice(state['mock'], ADAPTER, self.address, 'F2')
        device = mockobject.objects[self.path]
        device.button = self
        # What the advertisement said, as BlueZ reports it after InterfacesAdded.
        emit_changed(self.path, DEVICE_IFACE, {
            'AddressType': dbus.String('random', variant_level=1),
            'UUIDs': dbus.Array([self.service_uuid], signature='s', variant_level=1),
            'RSSI': dbus.Int16(-58, variant_level=1),
        })
        device.AddMethods(DEVICE_IFACE, [('Connect', '', '', Connect), ('Disconnect', '', '', Disconnect)])
        log(f'{self.address}: found by discovery')

    def vanish(self, emit=True):
        self.drop_link(emit)
        if self.visible():
            forget(self.path)
            if emit:
                manager().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesRemoved', 'oas',
                                     [dbus.ObjectPath(self.path), [DEVICE_IFACE]])

    def connect(self):
        if not self.in_range:
            raise bluez_error('Failed', 'le-connection-abort-by-local')
        if self.connected:
            raise bluez_error('AlreadyConnected', 'Already Connected')
        self.command('connect')
        self.connected = True
        self.advertising = False
        emit_changed(self.path, DEVICE_IFACE, {'Connected': dbus.Boolean(True, variant_level=1)})
        self.add_gatt()
        emit_changed(self.path, DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(True, variant_level=1)})

    def add_gatt(self):
        mock = state['mock']
        service_props = {
            'UUID': dbus.String(self.service_uuid, variant_level=1),
            'Device': dbus.ObjectPath(self.path, variant_level=1),
            'Primary': dbus.Boolean(True, variant_level=1),
            'Includes': dbus.Array([], signature='o', variant_level=1),
        }
        mock.AddObject(self.service, SERVICE_IFACE, service_props, [])
        manager().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                             [dbus.ObjectPath(self.service), {SERVICE_IFACE: service_props}])
        # The Twist's write characteristic is write-without-response only.
        write_flags = ['write-without-response'] if self.model == 'twist' else ['write-without-response', 'write']
        for path, uuid, flags in ((self.write_char, self.write_uuid, write_flags),
                                  (self.notify_char, self.notify_uuid, ['notify'])):
            props = {
                'UUID': dbus.String(uuid, variant_level=1),
                'Service': dbus.ObjectPath(self.service, variant_level=1),
                'Value': dbus.Array([], signature='y', variant_level=1),
                'Notifying': dbus.Boolean(False, variant_level=1),
                'Flags': dbus.Array(flags, signature='s', variant_level=1),
                'MTU': dbus.UInt16(ATT_MTU, variant_level=1),
            }
            mock.AddObject(path, CHAR_IFACE, props, [
                ('ReadValue', 'a{sv}', 'ay', ReadValue),
                ('WriteValue', 'aya{sv}', '', WriteValue),
                ('StartNotify', '', '', StartNotify),
                ('StopNotify', '', '', StopNotify),
            ])
            mockobject.objects[path].button = self
            manager().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesAdded', 'oa{sa{sv}}',
                                 [dbus.ObjectPath(path), {CHAR_IFACE: props}])

    def drop_link(self, emit=True):
        '''The radio link ends: GATT objects go, Connected and ServicesResolved turn false.'''
        if not self.connected:
            return
        if self.outbox:
            log(f'{self.address}: {len(self.outbox)} notifications lost with the link')
        self.outbox = []
        self.connected = False
        self.notifying = False
        # A Flic 2 that lost its link advertises again, so that its central finds it.
        self.advertising = True
        self.command('disconnect')
        for path, interface in ((self.notify_char, CHAR_IFACE), (self.write_char, CHAR_IFACE),
                                (self.service, SERVICE_IFACE)):
            if path in mockobject.objects:
                forget(path)
                if emit:
                    manager().EmitSignal(OBJECT_MANAGER_IFACE, 'InterfacesRemoved', 'oas',
                                         [dbus.ObjectPath(path), [interface]])
        if emit and self.visible():
            emit_changed(self.path, DEVICE_IFACE, {'ServicesResolved': dbus.Boolean(False, variant_level=1),
                                                   'Connected': dbus.Boolean(False, variant_level=1)})


def forget(path):
    '''Removes an object without a signal (what a dying bluetoothd does).'''
    obj = mockobject.objects.pop(path, None)
    if obj is not None:
        obj.remove_from_connection()


def adapter_discovering():
    adapter = mockobject.objects.get(ADAPTER_PATH)
    return bool(adapter and adapter.props[ADAPTER_IFACE]['Powered'] and adapter.props[ADAPTER_IFACE]['Discovering'])


def Connect(device):
    device.button.connect()


def Disconnect(device):
    if not device.button.connected:
        raise bluez_error('NotConnected', 'Not Connected')
    device.button.drop_link()


def ReadValue(char, _options):
    return dbus.Array(char.props[CHAR_IFACE]['Value'], signature='y')


def WriteValue(char, value, options):
    button = char.button
    if not button.connected:
        raise bluez_error('NotConnected', 'Not Connected')
    if len(value) > ATT_MTU - 3:
        raise bluez_error('InvalidValueLength', 'Invalid Length')
    kind = str(options.get('type', 'request'))
    flags = char.props[CHAR_IFACE]['Flags']
    if kind not in ('command', 'request', 'reliable') or \
            (kind == 'command' and 'write-without-response' not in flags) or (kind == 'request' and 'write' not in flags):
        raise bluez_error('NotSupported', 'Operation is not supported')
    notifications, _ = button.command('write ' + bytes(value).hex())
    button.deliver(notifications)


def StartNotify(char):
    button = char.button
    if not button.connected:
        raise bluez_error('NotConnected', 'Not Connected')
    if button.notifying:
        raise bluez_error('InProgress', 'Already notifying')
    button.notifying = True
    emit_changed(button.notify_char, CHAR_IFACE,
                 {'Notifying': dbus.Boolean(True, variant_level=1)})


def StopNotify(char):
    char.button.notifying = False


# Discovery as BlueZ's: a filter per client (one client here), Discovering as a property.
def StartDiscovery(adapter):
    if not adapter.props[ADAPTER_IFACE]['Powered']:
        raise bluez_error('NotReady', 'Resource Not Ready')
    if adapter.props[ADAPTER_IFACE]['Discovering']:
        raise bluez_error('InProgress', 'Operation already in progress')
    emit_changed(ADAPTER_PATH, ADAPTER_IFACE, {'Discovering': dbus.Boolean(True, variant_level=1)})
    for button in buttons.values():
        button.appear_if_found()


def StopDiscovery(adapter):
    if not adapter.props[ADAPTER_IFACE]['Discovering']:
        raise bluez_error('Failed', 'No discovery started')
    emit_changed(ADAPTER_PATH, ADAPTER_IFACE, {'Discovering': dbus.Boolean(False, variant_level=1)})


def SetDiscoveryFilter(adapter, discovery_filter):
    if not adapter.props[ADAPTER_IFACE]['Powered']:
        raise bluez_error('NotReady', 'Resource Not Ready')
    transport = discovery_filter.get('Transport', 'auto')
    if transport not in ('auto', 'bredr', 'le'):
        raise bluez_error('InvalidArguments', 'Invalid Arguments')
    state['filter'] = dict(discovery_filter)


def add_adapter():
    mock = state['mock']
    bluez5.AddAdapter(mock, ADAPTER, 'patchbay-standin')
    adapter = mockobject.objects[ADAPTER_PATH]
    adapter.AddMethods(ADAPTER_IFACE, [('StartDiscovery', '', '', StartDiscovery),
                                       ('StopDiscovery', '', '', StopDiscovery),
                                       ('SetDiscoveryFilter', 'a{sv}', '', SetDiscoveryFilter)])


def remove_adapter():
    for button in buttons.values():
        button.vanish()
    if ADAPTER_PATH in mockobject.objects:
        bluez5.RemoveAdapter(state['mock'], ADAPTER)


def set_powered(on):
    if not on:
        for button in buttons.values():
            button.vanish()
    emit_changed(ADAPTER_PATH, ADAPTER_IFACE, {'Powered': dbus.Boolean(on, variant_level=1),
                                               'Discovering': dbus.Boolean(False, variant_level=1)})


def stop_bluetoothd():
    for button in buttons.values():
        button.vanish(emit=False)
    state['running'] = False
    manager().connection.release_name(BUS_NAME)


def start_bluetoothd():
    # A new bluetoothd knows the adapter, not the unbonded buttons, and does not discover.
    adapter = mockobject.objects[ADAPTER_PATH]
    adapter.props[ADAPTER_IFACE]['Discovering'] = False
    state['filter'] = None
    manager().connection.request_name(BUS_NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    state['running'] = True


def control(line):
    words = line.split()
    if not words:
        return
    command, args = words[0], words[1:]
    button = buttons.get(args[0].upper()) if args else None
    if command == 'add':
        model = args[1] if len(args) > 1 else 'flic2'
        if model not in UUIDS:
            raise RuntimeError('model must be flic2, duo or twist')
        buttons[args[0].upper()] = Button(args[0], model)
        buttons[args[0].upper()].appear_if_found()
    elif command in ('press', 'hold-for-pairing', 'reset', 'advance', 'state', 'garbage', 'twist',
                     'push-twist', 'pair-in-process') and button is None:
        raise RuntimeError('no such button')
    elif command in ('twist', 'push-twist'):
        notifications, _ = button.command(command + ' ' + args[1])
        button.deliver(notifications)
    elif command == 'press':
        notifications, _ = button.command('press ' + args[1])
        button.deliver(notifications)
        if not button.connected:
            button.advertising = True
            button.appear_if_found()
    elif command == 'hold-for-pairing':
        button.command('hold-for-pairing')
        button.advertising = True
        button.appear_if_found()
    elif command == 'reset':
        notifications, _ = button.command('reset')
        button.deliver(notifications)
    elif command == 'garbage':
        header = b'' if button.model == 'twist' else getattr(button, 'header', b'\x00')
        button.deliver([header + bytes.fromhex(args[1])])
    elif command == 'advance':
        button.command('advance ' + args[1])
    elif command == 'state':
        _, lines = button.command('state')
        print(' '.join(lines), flush=True)
    elif command == 'pair-in-process':
        _, lines = button.command('pair-in-process')
        print(' '.join(lines), flush=True)
    elif command == 'out-of-range':
        button.in_range = False
        button.vanish()
    elif command == 'in-range':
        button.in_range = True
        button.appear_if_found()
    elif command == 'remove-adapter':
        remove_adapter()
    elif command == 'add-adapter':
        add_adapter()
    elif command == 'power-off':
        set_powered(False)
    elif command == 'power-on':
        set_powered(True)
    elif command == 'stop-bluetoothd':
        stop_bluetoothd()
    elif command == 'start-bluetoothd':
        start_bluetoothd()
    else:
        raise RuntimeError('unknown command ' + command)


def on_stdin(_source, _condition):
    # Raw reads: a buffered readline would keep further lines of one chunk until more input came.
    data = os.read(sys.stdin.fileno(), 65536)
    if not data:
        for button in buttons.values():
            button.process.kill()
        sys.exit(0)
    state['input'] = state.get('input', b'') + data
    while b'\n' in state['input']:
        line, state['input'] = state['input'].split(b'\n', 1)
        try:
            control(line.decode().strip())
            print('ok', flush=True)
        except Exception as error:  # the test reads the reason
            print('error ' + str(error).replace('\n', ' '), flush=True)
    return True


def load(mock, parameters):
    state['mock'] = mock
    state['host'] = parameters['button_host']
    state['timestamps'] = bool(parameters.get('timestamps'))
    bluez5.load(mock, parameters)

    # The main object is registered only after load() returns; the adapter's signal needs it.
    def ready():
        add_adapter()
        GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)
        print('ready', flush=True)
        return False
    GLib.idle_add(ready)
