/* Breaks descriptor: claims ABI major 2. */
#define PLUGIN_NAME "wrong-abi"
#define ABI_MAJOR 2
#include "skeleton.h"
