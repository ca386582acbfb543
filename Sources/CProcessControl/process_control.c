/* Header-only; this file gives SwiftPM a source to build. */
#include "process_control.h"
