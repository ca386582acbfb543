/* Keeps every rule: the checker's control. */
#define PLUGIN_NAME "well-behaved"
#include "skeleton.h"
