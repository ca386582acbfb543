/* The embedded `patchbay` module: the Context a user's module gets in every callback. */
#include "python_plugin.h"
#include <stddef.h>
#include <stdio.h>
#include <string.h>

py_plugin *py_plugin_current;

typedef struct {
  PyObject_HEAD py_plugin *plugin;
  PyObject *dict; /* the module may keep its own state on ctx (ctx.watch = ...) */
} context_object;

static PyTypeObject context_type;

const py_port *py_plugin_port_named(py_plugin *plugin, const char *name, pb_port_direction direction) {
  for (uint32_t i = 0; i < plugin->port_count; i++)
    if (plugin->ports[i].direction == direction && strcmp(plugin->ports[i].name, name) == 0) return &plugin->ports[i];
  return NULL;
}

static const char *status_name(pb_status status) {
  switch (status) {
  case PB_ERR_INVALID_ARGUMENT: return "invalid argument";
  case PB_ERR_UNKNOWN_PORT: return "unknown port";
  case PB_ERR_TYPE_MISMATCH: return "type mismatch";
  case PB_ERR_UNAVAILABLE: return "unavailable";
  case PB_ERR_NO_MEMORY: return "no memory";
  case PB_ERR_INVALID_STATE: return "invalid state (before start or after stop)";
  default: return "error";
  }
}

/* add_input / add_output: declare a port (only inside create). Returns the port's name, which
 * is what publish() takes and receive() passes. */
static PyObject *add_port(context_object *self, PyObject *args, PyObject *kwargs, pb_port_direction direction) {
  static char *keywords[] = {"name", "type", "kind", "description", NULL};
  const char *name, *type_name, *kind_name = NULL, *description = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ss|zz", keywords, &name, &type_name, &kind_name, &description))
    return NULL;
  py_plugin *plugin = self->plugin;
  if (!plugin->creating) {
    PyErr_SetString(PyExc_RuntimeError, "ports can only be declared inside create(ctx, config)");
    return NULL;
  }
  pb_value_type type;
  if (py_type_from_name(type_name, &type)) {
    PyErr_Format(PyExc_ValueError,
                 "port '%s': unknown type '%s' (trigger, bool, integer, number, text, color, light, button)", name,
                 type_name);
    return NULL;
  }
  /* Default kind: presses and triggers are events, everything else is state. */
  pb_port_kind kind = type == PB_VALUE_TRIGGER || type == PB_VALUE_BUTTON ? PB_PORT_EVENT : PB_PORT_STATE;
  if (kind_name && strcmp(kind_name, "event") == 0) kind = PB_PORT_EVENT;
  else if (kind_name && strcmp(kind_name, "state") == 0) kind = PB_PORT_STATE;
  else if (kind_name) {
    PyErr_Format(PyExc_ValueError, "port '%s': kind must be 'event' or 'state', not '%s'", name, kind_name);
    return NULL;
  }
  if (strlen(name) > 64 || plugin->port_count >= PY_PLUGIN_MAX_PORTS) {
    PyErr_Format(PyExc_ValueError, "port '%s': names are at most 64 bytes and an instance has at most %d ports", name,
                 PY_PLUGIN_MAX_PORTS);
    return NULL;
  }
  pb_port port = {.size = sizeof(pb_port), .direction = direction, .kind = kind, .type = type, .name = name,
                  .description = description};
  uint32_t index = 0;
  pb_status status = plugin->api->add_port(plugin->host, &port, &index);
  if (status != PB_OK) {
    PyErr_Format(PyExc_ValueError, "port '%s': the hub refused it (%s; names are [a-z0-9_.] and unique)", name,
                 status_name(status));
    return NULL;
  }
  py_port *entry = &plugin->ports[plugin->port_count++];
  snprintf(entry->name, sizeof entry->name, "%s", name);
  entry->direction = direction;
  entry->kind = kind;
  entry->type = type;
  entry->index = index;
  return PyUnicode_FromString(name);
}

static PyObject *context_add_input(PyObject *self, PyObject *args, PyObject *kwargs) {
  return add_port((context_object *)self, args, kwargs, PB_PORT_INPUT);
}

static PyObject *context_add_output(PyObject *self, PyObject *args, PyObject *kwargs) {
  return add_port((context_object *)self, args, kwargs, PB_PORT_OUTPUT);
}

/* publish(port, value=None): from any Python thread, once start() has begun. */
static PyObject *context_publish(PyObject *self, PyObject *args) {
  const char *name;
  PyObject *object = Py_None;
  if (!PyArg_ParseTuple(args, "s|O", &name, &object)) return NULL;
  py_plugin *plugin = ((context_object *)self)->plugin;
  const py_port *port = py_plugin_port_named(plugin, name, PB_PORT_OUTPUT);
  if (!port) {
    PyErr_Format(PyExc_KeyError, "no output port '%s' (declare it with ctx.add_output in create)", name);
    return NULL;
  }
  pb_value value;
  if (py_value_to_pb(object, port->type, port->name, &value)) return NULL;
  pb_status status = PB_ERR_INVALID_STATE;
  /* `value` may point into `object`'s UTF-8, which `args` keeps alive while the GIL is released. */
  Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&plugin->host_lock);
  if (plugin->publishing) status = plugin->api->publish(plugin->host, port->index, &value);
  pthread_mutex_unlock(&plugin->host_lock);
  Py_END_ALLOW_THREADS if (status != PB_OK) {
    PyErr_Format(PyExc_RuntimeError, "publish on '%s' refused: %s", name, status_name(status));
    return NULL;
  }
  Py_RETURN_NONE;
}

static int level_from(PyObject *object, pb_log_level *out) {
  static const char *const names[] = {"trace", "debug", "info", "notice", "warning", "error"};
  if (PyLong_Check(object)) {
    long level = PyLong_AsLong(object);
    if (level >= PB_LOG_TRACE && level <= PB_LOG_ERROR) {
      *out = (pb_log_level)level;
      return 0;
    }
  } else if (PyUnicode_Check(object)) {
    const char *name = PyUnicode_AsUTF8(object);
    for (int i = 0; name && i < 6; i++)
      if (strcmp(name, names[i]) == 0) {
        *out = (pb_log_level)i;
        return 0;
      }
  }
  PyErr_Clear();
  PyErr_Format(PyExc_ValueError, "log level must be trace, debug, info, notice, warning or error; got %R", object);
  return -1;
}

/* log(level, text) or log(text) at info. */
static PyObject *context_log(PyObject *self, PyObject *args) {
  PyObject *first, *second = NULL;
  if (!PyArg_ParseTuple(args, "O|O", &first, &second)) return NULL;
  pb_log_level level = PB_LOG_INFO;
  PyObject *text_object = second ? second : first;
  if (second && level_from(first, &level)) return NULL;
  PyObject *text = PyObject_Str(text_object);
  if (!text) return NULL;
  const char *message = PyUnicode_AsUTF8(text);
  if (!message) {
    Py_DECREF(text);
    return NULL;
  }
  py_plugin *plugin = ((context_object *)self)->plugin;
  Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&plugin->host_lock);
  if (plugin->host_open) plugin->api->log(plugin->host, level, message);
  pthread_mutex_unlock(&plugin->host_lock);
  Py_END_ALLOW_THREADS Py_DECREF(text);
  Py_RETURN_NONE;
}

/* A timer fired, in the plugin context: run its callable if it was not cancelled. */
static void timer_fired(void *user_data, uint64_t timer_id) {
  (void)timer_id;
  py_plugin *plugin = py_plugin_current;
  if (!plugin) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *key = PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)user_data);
  PyObject *entry = key ? PyDict_GetItemWithError(plugin->timers, key) : NULL;
  if (entry) {
    Py_INCREF(entry);
    PyDict_DelItem(plugin->timers, key);
    PyObject *result = PyObject_CallNoArgs(PyList_GET_ITEM(entry, 0));
    if (!result) py_log_exception(plugin, "a call_later callback");
    Py_XDECREF(result);
    Py_DECREF(entry);
  }
  PyErr_Clear();
  Py_XDECREF(key);
  PyGILState_Release(gil);
}

/* call_later(seconds, fn): fn() runs once in the plugin context; returns a key for cancel(). */
static PyObject *context_call_later(PyObject *self, PyObject *args) {
  double seconds;
  PyObject *callable;
  if (!PyArg_ParseTuple(args, "dO", &seconds, &callable)) return NULL;
  if (!PyCallable_Check(callable) || !(seconds >= 0) || seconds > 1e9) {
    PyErr_SetString(PyExc_TypeError, "call_later(seconds, fn): seconds >= 0 and a callable fn");
    return NULL;
  }
  py_plugin *plugin = ((context_object *)self)->plugin;
  uint64_t key_value = ++plugin->next_timer_key;
  PyObject *key = PyLong_FromUnsignedLongLong(key_value);
  PyObject *entry = key ? Py_BuildValue("[OK]", callable, 0ULL) : NULL;
  if (!entry || PyDict_SetItem(plugin->timers, key, entry)) {
    Py_XDECREF(key);
    Py_XDECREF(entry);
    return NULL;
  }
  uint64_t timer_id = 0;
  pb_status status = PB_ERR_INVALID_STATE;
  /* The entry is in place before the timer can fire; the GIL is not held across the host call. */
  Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&plugin->host_lock);
  if (plugin->host_open)
    status = plugin->api->schedule(plugin->host, (uint64_t)(seconds * 1e9), timer_fired,
                                   (void *)(uintptr_t)key_value, &timer_id);
  pthread_mutex_unlock(&plugin->host_lock);
  Py_END_ALLOW_THREADS if (status != PB_OK) {
    PyDict_DelItem(plugin->timers, key);
    Py_DECREF(key);
    Py_DECREF(entry);
    PyErr_Format(PyExc_RuntimeError, "call_later refused: %s", status_name(status));
    return NULL;
  }
  PyObject *id = PyLong_FromUnsignedLongLong(timer_id);
  if (id) PyList_SetItem(entry, 1, id);
  Py_DECREF(entry);
  return key;
}

/* cancel(key): True when the timer had not fired yet. */
static PyObject *context_cancel(PyObject *self, PyObject *key) {
  py_plugin *plugin = ((context_object *)self)->plugin;
  PyObject *entry = PyDict_GetItemWithError(plugin->timers, key);
  if (!entry) {
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_FALSE;
  }
  unsigned long long timer_id = PyLong_AsUnsignedLongLong(PyList_GET_ITEM(entry, 1));
  if (PyDict_DelItem(plugin->timers, key)) return NULL;
  if (timer_id) {
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&plugin->host_lock);
    if (plugin->host_open) plugin->api->cancel_timer(plugin->host, timer_id);
    pthread_mutex_unlock(&plugin->host_lock);
    Py_END_ALLOW_THREADS
  }
  Py_RETURN_TRUE;
}

static PyObject *context_get_state_dir(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(((context_object *)self)->plugin->state_directory);
}

static PyObject *context_get_instance(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_FromString(((context_object *)self)->plugin->instance_name);
}

static PyObject *context_get_errors(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromUnsignedLongLong(((context_object *)self)->plugin->callback_errors);
}

static PyMethodDef context_methods[] = {
    {"add_input", (PyCFunction)(void (*)(void))context_add_input, METH_VARARGS | METH_KEYWORDS,
     "add_input(name, type, kind=None, description=None) -> name. Only inside create()."},
    {"add_output", (PyCFunction)(void (*)(void))context_add_output, METH_VARARGS | METH_KEYWORDS,
     "add_output(name, type, kind=None, description=None) -> name. Only inside create()."},
    {"publish", context_publish, METH_VARARGS, "publish(port, value=None): from any thread, after start."},
    {"log", context_log, METH_VARARGS, "log(level, text) or log(text): through the hub's log."},
    {"call_later", context_call_later, METH_VARARGS, "call_later(seconds, fn) -> key: fn() once, in the plugin context."},
    {"cancel", context_cancel, METH_O, "cancel(key) -> bool: cancel a call_later that has not run."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
    {"state_dir", context_get_state_dir, NULL, "this instance's private, persistent directory", NULL},
    {"instance", context_get_instance, NULL, "this instance's name", NULL},
    {"errors", context_get_errors, NULL, "exceptions raised by this module's callbacks so far", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject context_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "patchbay.Context",
    .tp_basicsize = sizeof(context_object),
    .tp_dictoffset = offsetof(context_object, dict),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The instance's link to the hub: ports, publish, log, timers.",
    .tp_methods = context_methods,
    .tp_getset = context_getset,
};

PyObject *py_context_new(py_plugin *plugin) {
  context_object *context = PyObject_New(context_object, &context_type);
  if (context) {
    context->plugin = plugin;
    context->dict = NULL;
  }
  return (PyObject *)context;
}

static struct PyModuleDef patchbay_module = {
    PyModuleDef_HEAD_INIT, .m_name = "patchbay",
    .m_doc = "The patchbay hub's API for a plugin instance written in Python.", .m_size = -1,
};

PyObject *py_patchbay_module_init(void) {
  if (PyType_Ready(&context_type) < 0) return NULL;
  PyObject *module = PyModule_Create(&patchbay_module);
  if (!module) return NULL;
  Py_INCREF(&context_type);
  if (PyModule_AddObject(module, "Context", (PyObject *)&context_type) < 0) {
    Py_DECREF(&context_type);
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
