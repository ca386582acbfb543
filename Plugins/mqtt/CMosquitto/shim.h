// libmosquitto, the reference MQTT client library (Debian libmosquitto-dev), for Swift.
#include <mosquitto.h>
#include <mqtt_protocol.h>
