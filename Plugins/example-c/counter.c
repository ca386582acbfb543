#include "patchbay/plugin.h"
