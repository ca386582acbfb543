/* CPython's embedding API (Debian's libpython3-dev, found through pkg-config python3-embed). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
