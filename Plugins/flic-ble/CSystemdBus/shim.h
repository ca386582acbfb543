// sd-bus, systemd's D-Bus client library (Debian libsystemd-dev), for Swift: BlueZ's API.
#include <systemd/sd-bus.h>
