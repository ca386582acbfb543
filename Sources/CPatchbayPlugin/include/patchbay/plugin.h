/*
 * patchbay/plugin.h: the patchbay plugin ABI, version 1.3.
 *
 * This header is the whole contract between the patchbay hub and a plugin. A plugin is a
 * shared library (C, Swift, Rust, ... anything that can export a C function) that exports
 * one symbol, `patchbay_plugin_describe`, returning a descriptor. Everything else goes
 * through function tables.
 *
 * HOW A PLUGIN RUNS
 *   Every plugin *instance* (one section in /etc/patchbay) runs in its own small process,
 *   `patchbay-plugin-host`, which dlopen()s the library with RTLD_NOW|RTLD_LOCAL and never
 *   dlclose()s it. A crash, abort, hang or leak in the plugin costs only that process; the
 *   hub's supervisor restarts it according to the instance's restart policy. A restart is a
 *   new process: a plugin never sees create() twice in one process.
 *
 * LIFECYCLE (MUST rules)
 *   describe -> create -> start -> receive* -> stop -> destroy
 *   describe -> create -> retire -> destroy   (ABI 1.3: an instance removed from the config)
 *   - describe() may be called by tools (`patchbay plugins`) without create(); it MUST have
 *     no side effects.
 *   - create() parses the instance's config and declares ports. It MUST NOT start I/O that
 *     publishes: publishing before start() returns is refused with PB_ERR_INVALID_STATE.
 *   - start() begins work (connects sockets, starts threads). If it fails, stop() is not
 *     called; destroy() is.
 *   - receive() delivers one input value. It is only called between start() and stop().
 *   - stop() MUST end all plugin threads' use of the host table (no publish after stop()
 *     returns) and release external resources. destroy() frees the instance.
 *   - retire() (ABI 1.3, may be NULL) replaces start() .. stop() for an instance the user
 *     removed from the config: create() runs with its last config, then retire() undoes what
 *     the instance left outside the hub, then destroy(). No port is published to.
 *   - The host process may also simply exit (or be killed) at any time: a plugin MUST keep
 *     anything it needs to survive a crash on disk (see `state_directory`), written atomically.
 *
 * THREADING CLASSES
 *   [plugin context] create, start, receive, stop, retire, destroy, timer callbacks and
 *     timer release callbacks (schedule_with_release, ABI 1.2) are called one at a time,
 *     never concurrently, in the order the hub sent the inputs. They may run
 *     on different OS threads over time, but never two at once. Do not block in them for
 *     long: the hub measures liveness by how fast the plugin context answers its heartbeat,
 *     and kills an instance whose callback does not return within its hang deadline
 *     (default 10 s).
 *   [any thread] publish, log, monotonic_ns, schedule, cancel_timer, report_fault (and, in
 *     ABI 1.1, wait_for_room; in ABI 1.2, schedule_with_release) may be called from any
 *     thread the plugin owns, concurrently, at any time between create() and the return of
 *     stop() (publish only after start() has begun; during retire(), nothing is published).
 *   [create only] add_port may only be called from inside create().
 *   [plugin context] the config_* accessors may be called from create() until destroy().
 *
 * OWNERSHIP
 *   - Everything the host passes in (pointers in pb_create_args, pb_value inputs, strings
 *     returned by config accessors) is owned by the host. Inputs are borrowed only for the
 *     duration of the call; config strings and the args strings stay valid until destroy()
 *     returns. A plugin MUST NOT free host memory.
 *   - Everything the plugin passes to the host (ports, values to publish, log messages) is
 *     borrowed by the host only for the duration of that call; the host copies what it keeps.
 *   - The descriptor returned by describe() and the strings it points to MUST stay valid for
 *     the life of the process (a static struct is the usual way).
 *
 * ERRORS
 *   Every fallible call returns a pb_status: PB_OK (0) or a negative PB_ERR_* code. Calls
 *   from the host that can fail also get a pb_error buffer; the plugin may write a
 *   NUL-terminated human-readable message (at most PB_ERROR_CAPACITY bytes including the NUL)
 *   that the hub logs. Nothing may unwind across this boundary: no C++ exception, Swift
 *   error or longjmp may leave a plugin function.
 *
 * VERSIONING
 *   ABI major 1 is frozen: later v1 headers only append fields at the end of structs and add
 *   new constants. Every struct that crosses the boundary starts with `size`; the reader
 *   uses only the fields that fit inside `size`. A plugin built against an older v1 header
 *   keeps loading in a newer hub. The hub refuses a plugin whose major differs from its own,
 *   or whose minor is newer than its own, with a message naming both versions.
 *
 *   ABI 1.1 (append-only over 1.0): PB_ERR_BUSY; pb_host_api.wait_for_room;
 *   pb_plugin_descriptor.flags with PB_PLUGIN_PUBLISH_BUSY. Rebuilding a 1.0 plugin against
 *   this header changes nothing it sees: it gets PB_ERR_BUSY only once it sets that flag.
 *
 *   ABI 1.2 (append-only over 1.1): pb_port.flags and pb_port.mirrors (PB_PORT_MIRRORS_INPUT,
 *   PB_PORT_PEER_STATUS, PB_PORT_SHOWN_IN_STATUS); pb_host_api.schedule_with_release;
 *   PB_HOST_HAS(); pb_plugin_descriptor.abi_minor now means the lowest minor the plugin
 *   needs (see there).
 *
 *   ABI 1.3 (append-only over 1.2): pb_plugin_descriptor.retire, called once for an
 *   instance removed from the config (see there). A hub before 1.3 never calls it.
 *
 *   WHICH HUBS LOAD A PLUGIN: descriptor.abi_minor is the lowest ABI minor the plugin needs,
 *   not necessarily the header's PB_ABI_MINOR. A plugin that sets 0 loads in every v1 hub;
 *   anything newer it uses must then be checked at run time: a host function with
 *   PB_HOST_HAS(api, name) before calling it. Fields a newer plugin sets that an older hub
 *   does not know (pb_port.flags in a 1.1 hub, descriptor.flags in a 1.0 hub) are not read
 *   there: the plugin runs without what they ask for (no mirroring, no PEER column, ...).
 *   Set abi_minor to the minor that brought what the plugin cannot run without.
 *
 * DEVICE STATE THAT CHANGES ON THE DEVICE'S SIDE (ABI 1.2)
 *   The hub keeps the last value it gave each state input, and a restarted instance receives
 *   it first. When the device can change on its own (HomeKit writes, a Hue app, a wall
 *   switch), that value goes stale, and a restart would set the device back to it, undoing
 *   what the user did. Declare the output on which the plugin reports the device's own state
 *   with PB_PORT_MIRRORS_INPUT and `mirrors` = the input it mirrors: each value published
 *   there also becomes that input's retained value (a light value is merged into it, as a
 *   partial command), without being routed back to the input. Routes from the output carry
 *   the value as usual.
 *
 * EVENT PUBLISHING UNDER BACK-PRESSURE (ABI 1.1)
 *   When a consumer of a plugin's events is full, the hub stops reading that plugin's
 *   socket.
 *   - For a plugin that declares PB_PLUGIN_PUBLISH_BUSY, the host then keeps the frames in
 *     order in a buffer of its own and sends them as the hub reads again; publish() still
 *     answers PB_OK. Once that buffer holds PB_PUBLISH_BUFFER_EVENTS event values, publish()
 *     on an event port returns PB_ERR_BUSY: the value was NOT taken; publish it again later
 *     (wait_for_room() waits for the moment, without polling). Publish the same port's
 *     later events only after it, or their order changes.
 *   - Any other plugin (every ABI 1.0 plugin) waits inside publish() on an event port until
 *     the hub takes the value, as in ABI 1.0.
 *   State values never wait and never get PB_ERR_BUSY: a state value still waiting in the
 *   buffer is replaced by the port's newer one. Frames leave the host in the order the
 *   plugin's calls were made; no event is dropped between healthy instances.
 */
#ifndef PATCHBAY_PLUGIN_H
#define PATCHBAY_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_ABI_MAJOR 1
#define PB_ABI_MINOR 3

/* The one symbol a plugin library exports. */
#define PB_ENTRY_SYMBOL "patchbay_plugin_describe"

/* ---------------------------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------------------------- */
typedef int32_t pb_status;
#define PB_OK 0
#define PB_ERR_INVALID_CONFIG (-1)   /* the instance's config is wrong; not retried as is  */
#define PB_ERR_INVALID_ARGUMENT (-2) /* a parameter is NULL, out of range or malformed      */
#define PB_ERR_UNKNOWN_PORT (-3)     /* port index does not exist or has the wrong direction */
#define PB_ERR_TYPE_MISMATCH (-4)    /* value type differs from the port's declared type    */
#define PB_ERR_UNAVAILABLE (-5)      /* a device or peer is unreachable right now           */
#define PB_ERR_NO_MEMORY (-6)
#define PB_ERR_INTERNAL (-7)     /* a bug; the hub restarts the instance               */
#define PB_ERR_NOT_SUPPORTED (-8)
#define PB_ERR_INVALID_STATE (-9) /* called at the wrong point of the lifecycle          */
#define PB_ERR_NOT_FOUND (-10)    /* config key absent                                 */
/* ABI 1.1: publish() on an event port did not take the value, because the host's buffer
 * holds PB_PUBLISH_BUFFER_EVENTS unsent events (a consumer is slow). Only returned to a
 * plugin whose descriptor sets PB_PLUGIN_PUBLISH_BUSY. Publish the value again later. */
#define PB_ERR_BUSY (-11)

/* The name of a status code, for log lines ("PB_ERR_BUSY"); NULL for a code this header does
 * not name. The one list of names: a code added above is added here too. [any thread] */
static inline const char *pb_status_name(pb_status status) {
  switch (status) {
  case PB_OK: return "PB_OK";
  case PB_ERR_INVALID_CONFIG: return "PB_ERR_INVALID_CONFIG";
  case PB_ERR_INVALID_ARGUMENT: return "PB_ERR_INVALID_ARGUMENT";
  case PB_ERR_UNKNOWN_PORT: return "PB_ERR_UNKNOWN_PORT";
  case PB_ERR_TYPE_MISMATCH: return "PB_ERR_TYPE_MISMATCH";
  case PB_ERR_UNAVAILABLE: return "PB_ERR_UNAVAILABLE";
  case PB_ERR_NO_MEMORY: return "PB_ERR_NO_MEMORY";
  case PB_ERR_INTERNAL: return "PB_ERR_INTERNAL";
  case PB_ERR_NOT_SUPPORTED: return "PB_ERR_NOT_SUPPORTED";
  case PB_ERR_INVALID_STATE: return "PB_ERR_INVALID_STATE";
  case PB_ERR_NOT_FOUND: return "PB_ERR_NOT_FOUND";
  case PB_ERR_BUSY: return "PB_ERR_BUSY";
  default: return 0;
  }
}

/* Capacity of the message buffer in pb_error, including the terminating NUL. */
#define PB_ERROR_CAPACITY 512

/* Host-owned buffer a plugin may fill with a message when it returns an error. */
typedef struct pb_error {
  char message[PB_ERROR_CAPACITY];
} pb_error;

/* ---------------------------------------------------------------------------------------
 * Values
 * ------------------------------------------------------------------------------------- */
typedef uint32_t pb_value_type;
#define PB_VALUE_TRIGGER 1 /* no payload: "it happened"                              */
#define PB_VALUE_BOOL 2    /* u.boolean: 0 or 1                                        */
#define PB_VALUE_INTEGER 3 /* u.integer                                                */
#define PB_VALUE_NUMBER 4  /* u.number: a finite double                                */
#define PB_VALUE_TEXT 5    /* u.text: UTF-8                                            */
#define PB_VALUE_COLOR 6   /* u.color                                                  */
#define PB_VALUE_LIGHT 7   /* u.light: a partial light command                         */
#define PB_VALUE_BUTTON 8  /* u.button: a button action                                */

/* A color in HSB. hue in degrees [0, 360); saturation and brightness in percent [0, 100]. */
typedef struct pb_color {
  double hue;
  double saturation;
  double brightness;
} pb_color;

/* Which fields of a pb_light are set (a light command is partial: unset fields are kept). */
#define PB_LIGHT_ON (1u << 0)
#define PB_LIGHT_BRIGHTNESS (1u << 1)
#define PB_LIGHT_COLOR (1u << 2)
#define PB_LIGHT_COLOR_TEMPERATURE (1u << 3)
#define PB_LIGHT_TRANSITION (1u << 4)

typedef struct pb_light {
  uint32_t fields;           /* PB_LIGHT_* bits                                      */
  uint32_t on;               /* 0 or 1                                               */
  double brightness;         /* percent [0, 100]                                     */
  pb_color color;            /* its brightness field is ignored; use `brightness`     */
  double color_temperature;  /* mired, [153, 500]                                    */
  uint32_t transition_ms;    /* how long the change should take                       */
  uint32_t reserved;         /* zero                                                 */
} pb_light;

typedef uint32_t pb_button_action;
#define PB_BUTTON_DOWN 1
#define PB_BUTTON_UP 2
#define PB_BUTTON_CLICK 3
#define PB_BUTTON_DOUBLE_CLICK 4
#define PB_BUTTON_HOLD 5

typedef struct pb_button {
  pb_button_action action;
  uint32_t queued;  /* 1 when the press was stored and delivered late            */
  uint32_t age_ms;  /* how old the press is when published (0 for a live press)  */
  uint32_t reserved;
} pb_button;

/* Text is UTF-8 with an explicit length. Text the host passes in is also NUL-terminated. */
typedef struct pb_text {
  const char *data;
  uint32_t length; /* bytes, excluding any NUL; at most 4096 */
} pb_text;

typedef struct pb_value {
  uint32_t size; /* sizeof(pb_value) of the writer's header */
  pb_value_type type;
  union {
    uint32_t boolean;
    int64_t integer;
    double number;
    pb_text text;
    pb_color color;
    pb_light light;
    pb_button button;
    uint8_t reserved[64]; /* room for later value types */
  } u;
} pb_value;

/* ---------------------------------------------------------------------------------------
 * Ports
 * ------------------------------------------------------------------------------------- */
typedef uint32_t pb_port_direction;
#define PB_PORT_INPUT 1  /* the hub delivers values to the plugin (receive)  */
#define PB_PORT_OUTPUT 2 /* the plugin publishes values                        */

typedef uint32_t pb_port_kind;
/* Every value matters, in order (button presses). Delivered through a bounded queue. When a
 * running consumer's queue is full, the producer is slowed (back-pressure) instead of the
 * event being dropped: its host buffers, then publish() waits or, for a plugin that declares
 * PB_PLUGIN_PUBLISH_BUSY, returns PB_ERR_BUSY (see EVENT PUBLISHING UNDER BACK-PRESSURE).
 * Only for a consumer that is down or hung is overflow counted and logged by the hub. */
#define PB_PORT_EVENT 1
/* Only the latest value matters (a switch, a light). A slow consumer gets the newest value,
 * never a backlog. The hub keeps the last value of every state output and gives it to an
 * input that starts or restarts. */
#define PB_PORT_STATE 2

/* Fill it with designated initializers (`.size = sizeof(pb_port), .name = ...`): later minors
 * append fields, which stay zero that way (a positional initializer draws
 * -Wmissing-field-initializers). */
typedef struct pb_port {
  uint32_t size; /* sizeof(pb_port) */
  pb_port_direction direction;
  pb_port_kind kind;
  pb_value_type type;
  const char *name;        /* [a-z0-9_]+ (dots allowed), unique among all the instance's ports
                            * (an input and an output may not share a name), <= 64 bytes */
  const char *description; /* may be NULL */

  /* ---- ABI 1.2 (a 1.0/1.1 pb_port ends above; the host reads these only within `size`) ---- */

  uint32_t flags;   /* PB_PORT_* attribute bits below; 0: none (ABI 1.1 behaviour) */
  uint32_t mirrors; /* with PB_PORT_MIRRORS_INPUT: the index of the input this output mirrors */
} pb_port;

/* ABI 1.2, for pb_port.flags. add_port refuses an attribute on a port it does not fit with
 * PB_ERR_INVALID_ARGUMENT (and logs why). A hub older than 1.2 ignores them.
 *
 * An output that reports the device's own state of the input `mirrors`, declared before it
 * with the same value type (see DEVICE STATE THAT CHANGES ON THE DEVICE'S SIDE). Each value
 * published on the output becomes the input's retained value, the one a restarted instance
 * receives first, if the hub has given the input a value; a light is merged into the
 * retained light. The value is not delivered to the input. The output may be a state or an
 * event port (a light command per HomeKit write). Publish there only what the device
 * reports, not an echo of a command still on its way. */
#define PB_PORT_MIRRORS_INPUT (1u << 0)
/* A state output that says how the instance reaches its peer (a bridge, broker or server):
 * `patchbay status` shows its value in the PEER column while the instance runs. A bool shows
 * as "connected" or "disconnected", a text as it is ("taken over", "not answering"). At
 * most one per instance; bool or text. */
#define PB_PORT_PEER_STATUS (1u << 1)
/* A text state output that `patchbay status` shows under the instance while it runs and the
 * value is not empty, as "INSTANCE: PORT VALUE" (when a schedule fires next). */
#define PB_PORT_SHOWN_IN_STATUS (1u << 2)

/* ---------------------------------------------------------------------------------------
 * Host services, passed to create()
 * ------------------------------------------------------------------------------------- */
typedef uint32_t pb_log_level;
#define PB_LOG_TRACE 0
#define PB_LOG_DEBUG 1
#define PB_LOG_INFO 2
#define PB_LOG_NOTICE 3
#define PB_LOG_WARNING 4
#define PB_LOG_ERROR 5

/* Opaque host context; pass it back to every host function. */
typedef struct pb_host pb_host;

/* ABI 1.1: event values a plugin's host buffers while the hub does not read, before publish()
 * waits or returns PB_ERR_BUSY. For information: a plugin must not depend on the number. */
#define PB_PUBLISH_BUFFER_EVENTS 1024

/* A timer callback, run in the [plugin context]. */
typedef void (*pb_timer_fn)(void *user_data, uint64_t timer_id);

/* ABI 1.2: releases a timer's user data; see schedule_with_release. */
typedef void (*pb_release_fn)(void *user_data);

/* ABI 1.2: whether the host table `api` has the function `field` (its size reaches past it
 * and it is not NULL). Check it before calling anything newer than the minor the plugin
 * declares it needs: PB_HOST_HAS(api, schedule_with_release). */
#define PB_HOST_HAS(api, field)                                                                \
  ((api) != NULL && (size_t)(api)->size >= offsetof(pb_host_api, field) + sizeof((api)->field) && \
   (api)->field != NULL)

typedef struct pb_host_api {
  uint32_t size; /* sizeof(pb_host_api) of the host; check before using a later field */
  uint32_t abi_major;
  uint32_t abi_minor;
  uint32_t reserved;

  /* [create only] Declare a port. *index_out receives the port's index, used with publish()
   * (outputs) and passed to receive() (inputs). Inputs and outputs are numbered together,
   * in declaration order, from 0. Fails with PB_ERR_INVALID_ARGUMENT (bad or duplicate name,
   * unknown type, direction or kind; the host logs which) or PB_ERR_INVALID_STATE. */
  pb_status (*add_port)(pb_host *host, const pb_port *port, uint32_t *index_out);

  /* [any thread] Publish a value on an output port. The value is copied before return.
   * Returns PB_ERR_UNKNOWN_PORT, PB_ERR_TYPE_MISMATCH or PB_ERR_INVALID_STATE (before start
   * or after stop), PB_ERR_UNAVAILABLE when the hub is gone. State values never wait (only
   * the newest is kept). On an event port, while a consumer of those events is full and
   * running (back-pressure, so that between healthy instances no event is lost), the host
   * buffers up to PB_PUBLISH_BUFFER_EVENTS values; beyond that publish() waits, at most
   * the consumer's hang deadline, or, for a plugin that declares PB_PLUGIN_PUBLISH_BUSY
   * (ABI 1.1), returns PB_ERR_BUSY at once without taking the value. A plugin that must not
   * wait declares that flag, or publishes from a thread of its own; the hub does not count
   * heartbeat answers it held back this way as a hang. */
  pb_status (*publish)(pb_host *host, uint32_t port_index, const pb_value *value);

  /* [any thread] Log one line; the hub prefixes it with the instance name and filters it by
   * the instance's log level. message is a NUL-terminated UTF-8 string. */
  void (*log)(pb_host *host, pb_log_level level, const char *message);

  /* [any thread] Nanoseconds of a monotonic clock (CLOCK_MONOTONIC). */
  uint64_t (*monotonic_ns)(pb_host *host);

  /* [any thread] Call `callback(user_data, id)` once, in the [plugin context], after at
   * least delay_ns. *timer_id_out (may be NULL) receives a non-zero id. Timers do not fire
   * after stop() has begun. */
  pb_status (*schedule)(pb_host *host, uint64_t delay_ns, pb_timer_fn callback, void *user_data,
                        uint64_t *timer_id_out);

  /* [any thread] Cancel a timer that has not fired yet. PB_ERR_NOT_FOUND if it already
   * fired or never existed. The user data of a schedule()d timer stays the plugin's: with
   * schedule_with_release (ABI 1.2) the host releases it. */
  pb_status (*cancel_timer)(pb_host *host, uint64_t timer_id);

  /* [any thread] The plugin cannot continue (lost a device for good, detected corruption).
   * The host logs the message, ends the process with a non-zero exit code and the
   * supervisor treats it like a crash. Does not return. */
  void (*report_fault)(pb_host *host, pb_status code, const char *message);

  /* [plugin context] Read the instance's config (its section in the hub's TOML config, less
   * the hub's own keys `plugin`, `log_level`, `restart`, ...). `path` is a dotted key path;
   * array elements are addressed by index: "buttons.0.address". Returns PB_ERR_NOT_FOUND
   * when absent, PB_ERR_TYPE_MISMATCH when the key holds another type. Integers are also
   * readable as numbers. Strings are owned by the host and valid until destroy() returns. */
  pb_status (*config_string)(pb_host *host, const char *path, const char **out);
  pb_status (*config_integer)(pb_host *host, const char *path, int64_t *out);
  pb_status (*config_number)(pb_host *host, const char *path, double *out);
  pb_status (*config_bool)(pb_host *host, const char *path, uint32_t *out);
  /* Number of elements of an array, or of keys of a table. */
  pb_status (*config_count)(pb_host *host, const char *path, uint32_t *out);
  /* Name of the index-th key of a table (keys in file order). */
  pb_status (*config_key)(pb_host *host, const char *path, uint32_t index, const char **out);

  /* ---- ABI 1.1: check size >= offsetof(pb_host_api, wait_for_room) + sizeof(void *) ---- */

  /* [any thread] Waits until publish() on an event port would take a value again (the
   * host's buffer has room; see PB_ERR_BUSY), or until timeout_ns passed: 0 does not wait,
   * UINT64_MAX waits as long as it takes. Returns PB_OK when there is room (or the hub is
   * gone: publish() then says PB_ERR_UNAVAILABLE), PB_ERR_BUSY when the time ran out.
   * Another thread may take the room first: publish again and handle PB_ERR_BUSY again. */
  pb_status (*wait_for_room)(pb_host *host, uint64_t timeout_ns);

  /* ---- ABI 1.2: check PB_HOST_HAS(api, schedule_with_release) ---- */

  /* [any thread] Like schedule(), and the host calls `release(user_data)` (may be NULL)
   * exactly once, in the [plugin context], when the timer is done with it: after `callback`
   * returned, after cancel_timer() took it, or, for a timer still pending when stop()
   * returns, before destroy(). The plugin frees the user data there, never before. If this
   * call fails, nothing is scheduled and `release` is not called. */
  pb_status (*schedule_with_release)(pb_host *host, uint64_t delay_ns, pb_timer_fn callback,
                                     pb_release_fn release, void *user_data, uint64_t *timer_id_out);
} pb_host_api;

typedef struct pb_create_args {
  uint32_t size; /* sizeof(pb_create_args) of the host */
  uint32_t reserved;
  const pb_host_api *api; /* valid until destroy() returns */
  pb_host *host;          /* valid until destroy() returns */
  const char *instance_name;   /* e.g. "bedside"                                  */
  /* The instance's config as one JSON object (the same data the config_* accessors read),
   * for plugins that prefer their own parser. */
  const char *config_json;
  /* A private directory for this instance's persistent state (exists, writable). Survives
   * restarts of the instance and of the hub. Write atomically, so that a kill at any moment
   * leaves the old or the new file, never a torn one (the Swift kit's `AtomicFile` does this):
   *   1. open "DIR/FILE.tmp-PID-N" (a name of this write's own) with O_WRONLY|O_CREAT|O_EXCL;
   *   2. write() all of it (loop on short writes and EINTR), then fsync() and close();
   *   3. rename() it over "DIR/FILE" (on failure, unlink the temp file);
   *   4. open DIR with O_RDONLY|O_DIRECTORY, fsync() it, close() it (the rename persists).
   * When loading, unlink the "FILE.tmp-*" files an earlier kill left behind: this instance is
   * the only writer in its directory. */
  const char *state_directory;
} pb_create_args;

/* ---------------------------------------------------------------------------------------
 * The plugin descriptor
 * ------------------------------------------------------------------------------------- */
typedef struct pb_plugin_descriptor {
  uint32_t size; /* sizeof(pb_plugin_descriptor) of the plugin's header */
  uint32_t abi_major; /* PB_ABI_MAJOR the plugin was built against */
  /* The lowest ABI minor the plugin needs: a hub whose minor is lower refuses it. Up to 1.1
   * this was the header's PB_ABI_MINOR; since 1.2 it may be lower (0 loads in every v1 hub),
   * provided the plugin checks what is newer before it uses it (see VERSIONING). */
  uint32_t abi_minor;
  uint32_t reserved;
  const char *name;        /* plugin name, e.g. "flic"; non-empty                         */
  const char *version;     /* the plugin's own version, e.g. "1.2.0"; non-empty          */
  const char *description; /* one line; may be NULL                                      */

  /* [plugin context] Create an instance. Read config, declare ports with api->add_port,
   * store `args` pointers if needed (they live until destroy). On success set *instance_out
   * (may be any pointer, including NULL) and return PB_OK. On failure return an error code
   * and fill `error`; nothing else is called afterwards. */
  pb_status (*create)(const pb_create_args *args, void **instance_out, pb_error *error);

  /* [plugin context] Begin work. Publishing is allowed from here on. */
  pb_status (*start)(void *instance, pb_error *error);

  /* [plugin context] One value for input port `port_index`, of the port's declared type.
   * `value` is borrowed for the duration of the call. An error is logged by the hub; the
   * instance keeps running (use report_fault to give up). */
  pb_status (*receive)(void *instance, uint32_t port_index, const pb_value *value, pb_error *error);

  /* [plugin context] Stop work: after return, no thread of the plugin uses the host table. */
  pb_status (*stop)(void *instance, pb_error *error);

  /* [plugin context] Free the instance. Called once after a successful create(). */
  void (*destroy)(void *instance);

  /* ---- ABI 1.1 (a 1.0 descriptor ends above; the host reads these only within `size`) ---- */

  /* PB_PLUGIN_* bits: what this plugin declares it handles. Zero keeps ABI 1.0 behaviour. */
  uint32_t flags;
  uint32_t reserved_1_1; /* zero */

  /* ---- ABI 1.3 (a 1.1 or 1.2 descriptor ends above) ---- */

  /* [plugin context] May be NULL. The instance was removed from the config for good (or
   * renamed): undo what it left outside the hub, so nothing it announced outlives its config:
   * retained MQTT messages, registrations with a bridge or a cloud. Called after a successful
   * create() with the instance's last config and its state directory, instead of start(); no
   * port may be published to (logging is fine). Do the work, wait for it to be acknowledged,
   * and return PB_OK; return an error (PB_ERR_UNAVAILABLE: the peer is away) and the hub logs
   * it and tries again at its next start or reload. PB_ERR_NOT_SUPPORTED means nothing to
   * undo. stop() is not called afterwards; destroy() is. The hub gives it 60 s. */
  pb_status (*retire)(void *instance, pb_error *error);
} pb_plugin_descriptor;

/* ABI 1.1, for pb_plugin_descriptor.flags: publish() on an event port may return PB_ERR_BUSY
 * instead of waiting; the plugin publishes the value again later (see publish()). */
#define PB_PLUGIN_PUBLISH_BUSY (1u << 0)

/* The entry symbol. [any thread] Returns a descriptor valid for the life of the process,
 * or NULL if the plugin cannot run here at all. */
typedef const pb_plugin_descriptor *(*pb_describe_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PATCHBAY_PLUGIN_H */
