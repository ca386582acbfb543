# Sourced by the run-fuzz scripts whose sources import PatchbayValues (hue, homebridge-websocket,
# mqtt): `fuzz_values_module DIR` builds the hub's value types, with the same sanitizers, as
# DIR/libPatchbayValues.a plus its module, for `swiftc -I DIR ... DIR/libPatchbayValues.a`.
fuzz_values_module() {
  local modules="$1" root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  mkdir -p "$modules"
  # gold's warnings about the sanitizer's local symbols are noise; errors still stop the script.
  swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name PatchbayValues \
    "$root"/Sources/PatchbayValues/*.swift -emit-library -static -emit-module -emit-module-path "$modules/" \
    -o "$modules/libPatchbayValues.a" 2> >(grep -v 'Cannot export' >&2)
}
