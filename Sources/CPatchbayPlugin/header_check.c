/* Compiles the plugin header as C with the package's warnings, so a mistake in it fails the
 * build. The ABI itself is header-only: a plugin links against nothing. */
#include "patchbay/plugin.h"

_Static_assert(sizeof(pb_value) == 72, "pb_value layout is frozen for ABI 1");
_Static_assert(sizeof(pb_light) == 56, "pb_light layout is frozen for ABI 1");
/* ABI 1.1 appends after the last 1.0 field: the 1.0 prefixes keep their layout. */
_Static_assert(offsetof(pb_host_api, wait_for_room) == 120, "pb_host_api 1.0 prefix is 120 bytes");
_Static_assert(offsetof(pb_plugin_descriptor, flags) == 80, "pb_plugin_descriptor 1.0 prefix is 80 bytes");
