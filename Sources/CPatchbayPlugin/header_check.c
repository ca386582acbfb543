/* Compiles the plugin header as C with the package's warnings, so a mistake in it fails the
 * build. The ABI itself is header-only: a plugin links against nothing. */
#include "patchbay/plugin.h"

#include <stddef.h>

_Static_assert(sizeof(pb_value) == 72, "pb_value layout is frozen for ABI 1");
_Static_assert(sizeof(pb_light) == 56, "pb_light layout is frozen for ABI 1");
/* ABI 1.1 appends after the last 1.0 field: the 1.0 prefixes keep their layout. */
_Static_assert(offsetof(pb_host_api, wait_for_room) == 120, "pb_host_api 1.0 prefix is 120 bytes");
_Static_assert(offsetof(pb_plugin_descriptor, flags) == 80, "pb_plugin_descriptor 1.0 prefix is 80 bytes");
/* ABI 1.2 appends pb_port.flags and .mirrors after the 1.1 port, and schedule_with_release
 * after the 1.1 host table; ABI 1.3 appends pb_plugin_descriptor.retire after the 1.1
 * descriptor. Each earlier prefix keeps its layout. */
_Static_assert(offsetof(pb_port, flags) == 32, "pb_port 1.1 prefix is 32 bytes");
_Static_assert(offsetof(pb_port, mirrors) == 36, "pb_port.mirrors follows flags");
_Static_assert(sizeof(pb_port) == 40, "pb_port 1.2 is 40 bytes");
_Static_assert(offsetof(pb_host_api, schedule_with_release) == 128, "pb_host_api 1.1 is 128 bytes");
_Static_assert(offsetof(pb_plugin_descriptor, retire) == 88, "pb_plugin_descriptor 1.1/1.2 is 88 bytes");
_Static_assert(sizeof(pb_plugin_descriptor) == 96, "pb_plugin_descriptor 1.3 is 96 bytes");
_Static_assert(PB_ABI_MAJOR == 1 && PB_ABI_MINOR == 3, "this header is ABI 1.3");
