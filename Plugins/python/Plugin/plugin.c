/*
 * python: a plugin instance written in Python. The instance's config names a module (a path to
 * a .py file or an importable name) and optionally a venv; the module's create(ctx, config)
 * declares ports, and start(ctx), receive(ctx, port, value), stop(ctx) run in the plugin
 * context. The GIL is held only while Python runs, so the module's own threads run between
 * callbacks and may publish at any time.
 */
#include "python_plugin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls module.NAME(ctx, ...) if the module defines it. Returns the result (Py_None when
 * absent) or NULL with the exception set. */
static PyObject *call_optional(py_plugin *plugin, const char *name, PyObject *port, PyObject *value) {
  PyObject *function = PyObject_GetAttrString(plugin->module, name);
  if (!function) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  PyObject *result = port ? PyObject_CallFunctionObjArgs(function, plugin->context, port, value, NULL)
                          : PyObject_CallFunctionObjArgs(function, plugin->context, NULL);
  Py_DECREF(function);
  return result;
}

/* The instance's config as a dict, less the plugin's own keys `module` and `venv`. */
static PyObject *user_config(const char *json_text) {
  PyObject *json = PyImport_ImportModule("json");
  PyObject *config = json ? PyObject_CallMethod(json, "loads", "s", json_text ? json_text : "{}") : NULL;
  Py_XDECREF(json);
  if (config && PyDict_Check(config)) {
    if (PyDict_GetItemString(config, "module")) PyDict_DelItemString(config, "module");
    if (PyDict_GetItemString(config, "venv")) PyDict_DelItemString(config, "venv");
  }
  return config;
}

static pb_status config_text(py_plugin *plugin, const char *key, const char **out, pb_error *error) {
  pb_status status = plugin->api->config_string(plugin->host, key, out);
  if (status == PB_ERR_TYPE_MISMATCH) {
    snprintf(error->message, PB_ERROR_CAPACITY, "%s must be a string (a path%s)", key,
             strcmp(key, "module") == 0 ? " to a .py file or an importable module name" : " to a venv");
    return PB_ERR_INVALID_CONFIG;
  }
  if (status == PB_ERR_NOT_FOUND) *out = NULL;
  return PB_OK;
}

static pb_status python_create(const pb_create_args *args, void **instance_out, pb_error *error) {
  if (py_plugin_current) {
    snprintf(error->message, PB_ERROR_CAPACITY, "one python instance per process");
    return PB_ERR_INVALID_STATE;
  }
  py_plugin *plugin = calloc(1, sizeof(py_plugin));
  if (!plugin) return PB_ERR_NO_MEMORY;
  plugin->api = args->api;
  plugin->host = args->host;
  plugin->instance_name = args->instance_name;
  plugin->state_directory = args->state_directory;
  pthread_mutex_init(&plugin->host_lock, NULL);
  plugin->host_open = 1;

  const char *module = NULL, *venv = NULL;
  if (config_text(plugin, "module", &module, error) || config_text(plugin, "venv", &venv, error)) {
    free(plugin);
    return PB_ERR_INVALID_CONFIG;
  }
  if (!module || !*module) {
    snprintf(error->message, PB_ERROR_CAPACITY,
             "module: missing; set module = \"/etc/patchbay/python/NAME.py\" or an importable module name");
    free(plugin);
    return PB_ERR_INVALID_CONFIG;
  }
  if (py_interpreter_start()) {
    snprintf(error->message, PB_ERROR_CAPACITY, "the Python interpreter did not start");
    free(plugin);
    return PB_ERR_INTERNAL;
  }
  py_plugin_current = plugin;
  pb_status status = PB_OK;
  plugin->timers = PyDict_New();
  plugin->context = py_context_new(plugin);
  plugin->module = plugin->timers && plugin->context ? py_load_user_module(module, venv, error) : NULL;
  if (!plugin->module) {
    status = PB_ERR_INVALID_CONFIG;
  } else {
    PyObject *config = user_config(args->config_json);
    PyObject *create = config ? PyObject_GetAttrString(plugin->module, "create") : NULL;
    plugin->creating = 1;
    PyObject *result = create ? PyObject_CallFunctionObjArgs(create, plugin->context, config, NULL) : NULL;
    plugin->creating = 0;
    if (!result) {
      char summary[PB_ERROR_CAPACITY];
      py_take_exception(plugin, "create(ctx, config)", summary, sizeof summary);
      snprintf(error->message, PB_ERROR_CAPACITY, "module = \"%.200s\": create(ctx, config) raised %.250s", module, summary);
      status = PB_ERR_INVALID_CONFIG;
    }
    Py_XDECREF(result);
    Py_XDECREF(create);
    Py_XDECREF(config);
  }
  /* From here on Python runs only inside callbacks (PyGILState) and in the module's threads. */
  PyEval_SaveThread();
  if (status != PB_OK) {
    /* Nothing else is called; the process ends without finalizing (that could wait on threads). */
    pthread_mutex_lock(&plugin->host_lock);
    plugin->host_open = 0;
    pthread_mutex_unlock(&plugin->host_lock);
    return status;
  }
  *instance_out = plugin;
  return PB_OK;
}

static pb_status python_start(void *instance, pb_error *error) {
  py_plugin *plugin = instance;
  pthread_mutex_lock(&plugin->host_lock);
  plugin->publishing = 1;
  pthread_mutex_unlock(&plugin->host_lock);
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *result = call_optional(plugin, "start", NULL, NULL);
  pb_status status = PB_OK;
  if (!result) {
    /* start() failing means the instance cannot run now: the supervisor retries with back-off. */
    py_take_exception(plugin, "start(ctx)", error->message, PB_ERROR_CAPACITY);
    status = PB_ERR_UNAVAILABLE;
  }
  Py_XDECREF(result);
  PyGILState_Release(gil);
  return status;
}

static pb_status python_receive(void *instance, uint32_t port_index, const pb_value *value, pb_error *error) {
  py_plugin *plugin = instance;
  const py_port *port = NULL;
  for (uint32_t i = 0; i < plugin->port_count; i++)
    if (plugin->ports[i].index == port_index && plugin->ports[i].direction == PB_PORT_INPUT) port = &plugin->ports[i];
  if (!port) {
    snprintf(error->message, PB_ERROR_CAPACITY, "no input port %u", port_index);
    return PB_ERR_UNKNOWN_PORT;
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *name = PyUnicode_FromString(port->name);
  PyObject *object = name ? py_value_from_pb(value) : NULL;
  PyObject *result = object ? call_optional(plugin, "receive", name, object) : NULL;
  /* The exception is the module's: logged with its traceback and counted; the value is consumed
   * and the instance keeps running. */
  if (!result) py_log_exception(plugin, "receive(ctx, port, value)");
  Py_XDECREF(result);
  Py_XDECREF(object);
  Py_XDECREF(name);
  PyGILState_Release(gil);
  return PB_OK;
}

static pb_status python_stop(void *instance, pb_error *error) {
  (void)error;
  py_plugin *plugin = instance;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *result = call_optional(plugin, "stop", NULL, NULL);
  if (!result) py_log_exception(plugin, "stop(ctx)");
  Py_XDECREF(result);
  /* Pending call_later timers will not fire after stop (the host's rule); drop their callables. */
  PyDict_Clear(plugin->timers);
  PyGILState_Release(gil);
  /* The module's threads may still call publish or log: from now on they get RuntimeError or
   * are dropped, and never reach the host table. */
  pthread_mutex_lock(&plugin->host_lock);
  plugin->publishing = 0;
  plugin->host_open = 0;
  pthread_mutex_unlock(&plugin->host_lock);
  return PB_OK;
}

static void python_destroy(void *instance) {
  /* After a failed start() there was no stop(): close the host table to the module's threads. */
  py_plugin *plugin = instance;
  pthread_mutex_lock(&plugin->host_lock);
  plugin->publishing = 0;
  plugin->host_open = 0;
  pthread_mutex_unlock(&plugin->host_lock);
  /* The interpreter is not finalized and the instance not freed: the module's threads may still
   * hold the context, and Py_FinalizeEx would wait for them. The process ends next. */
}

static const pb_plugin_descriptor descriptor = {
    .size = sizeof(pb_plugin_descriptor),
    .abi_major = PB_ABI_MAJOR,
    .abi_minor = PB_ABI_MINOR,
    .name = "python",
    .version = PATCHBAY_VERSION, /* patchbay's version, from Package.swift */
    .description = "Runs a Python module as a plugin instance (embedded CPython, one interpreter per instance)",
    .create = python_create,
    .start = python_start,
    .receive = python_receive,
    .stop = python_stop,
    .destroy = python_destroy,
};

__attribute__((visibility("default"))) const pb_plugin_descriptor *patchbay_plugin_describe(void) {
  return &descriptor;
}
