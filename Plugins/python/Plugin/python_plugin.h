/*
 * The python plugin's internals: one CPython interpreter per instance (each instance is its
 * own plugin-host process) running a user's module through a small embedded `patchbay` API.
 */
#ifndef PATCHBAY_PYTHON_PLUGIN_H
#define PATCHBAY_PYTHON_PLUGIN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <patchbay/plugin.h>
#include <pthread.h>
#include <stdint.h>

#define PY_PLUGIN_MAX_PORTS 128

typedef struct py_port {
  char name[65];
  pb_port_direction direction;
  pb_port_kind kind;
  pb_value_type type;
  uint32_t index;
} py_port;

typedef struct py_plugin {
  const pb_host_api *api;
  pb_host *host;
  const char *instance_name;
  const char *state_directory;

  PyObject *module;  /* the user's module */
  PyObject *context; /* the patchbay.Context handed to every callback */
  PyObject *timers;  /* dict: timer key -> (callable, host timer id) */
  uint64_t next_timer_key;

  py_port ports[PY_PLUGIN_MAX_PORTS];
  uint32_t port_count;
  int creating; /* add_input/add_output only inside create() */

  /* Guards the two flags: after stop() returns no Python thread reaches the host table. */
  pthread_mutex_t host_lock;
  int publishing; /* start() has begun and stop() has not */
  int host_open;  /* between create() and stop() */

  uint64_t callback_errors; /* exceptions raised by the module's callbacks, logged and counted */
} py_plugin;

/* The one instance of this process (a plugin never sees create() twice in one process). */
extern py_plugin *py_plugin_current;

/* values.c: pb_value <-> Python, type-checked at the boundary. */
PyObject *py_value_from_pb(const pb_value *value);
/* Fills *out from `object` for a port of `type`. On a wrong type or value raises TypeError or
 * ValueError naming `port_name` and the expected type, and returns -1. Text points into
 * `object` (borrowed for as long as `object` lives). */
int py_value_to_pb(PyObject *object, pb_value_type type, const char *port_name, pb_value *out);
const char *py_type_name(pb_value_type type);
int py_type_from_name(const char *name, pb_value_type *out);

/* context.c: the `patchbay` module and its Context type. */
PyObject *py_patchbay_module_init(void);
PyObject *py_context_new(py_plugin *plugin);
const py_port *py_plugin_port_named(py_plugin *plugin, const char *name, pb_port_direction direction);

/* errors.c: a Python exception in a callback is logged with its traceback and counted. */
void py_log_exception(py_plugin *plugin, const char *where);
/* The current exception as one line ("ValueError: boom"), into `buffer`; clears it. */
void py_exception_summary(char *buffer, size_t capacity);
void py_host_log(py_plugin *plugin, pb_log_level level, const char *message);
/* Both: the one-line summary into `summary` (for a pb_error) and the traceback to the log of
 * `plugin` (may be NULL: not logged); clears the exception. */
void py_take_exception(py_plugin *plugin, const char *where, char *summary, size_t capacity);

/* loader.c: the interpreter, sys.path and venv, importing the user's module. */
int py_interpreter_start(void);
/* Imports `module` (a path to a .py file or an importable name), adding `venv`'s
 * site-packages (may be NULL) to sys.path first. On failure fills `error` and returns NULL. */
PyObject *py_load_user_module(const char *module, const char *venv, pb_error *error);

#endif
