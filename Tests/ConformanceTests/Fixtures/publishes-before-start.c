/* Breaks no-publish-before-start: publishes from create(). */
#define PLUGIN_NAME "publishes-before-start"
#define ON_CREATE(self) publish_integer(self, 1)
#include "skeleton.h"
