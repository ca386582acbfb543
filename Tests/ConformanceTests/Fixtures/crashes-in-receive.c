/* Breaks no-crash: dereferences NULL when an input arrives. */
#define PLUGIN_NAME "crashes-in-receive"
#define ON_RECEIVE(self, port) (*(volatile int *)0 = (int)(port))
#include "skeleton.h"
