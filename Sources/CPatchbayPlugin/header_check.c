/* Compiles the plugin header as C with the package's warnings, so a mistake in it fails the
 * build. The ABI itself is header-only: a plugin links against nothing. */
#include "patchbay/plugin.h"

_Static_assert(sizeof(pb_value) == 72, "pb_value layout is frozen for ABI 1");
_Static_assert(sizeof(pb_light) == 56, "pb_light layout is frozen for ABI 1");
