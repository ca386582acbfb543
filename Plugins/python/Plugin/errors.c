/* A Python exception never crosses the C boundary: it is logged with its traceback through the
 * host's log, counted, and cleared; the instance keeps running. */
#include "python_plugin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void py_host_log(py_plugin *plugin, pb_log_level level, const char *message) {
  /* The host may block briefly on its socket: let other Python threads run meanwhile. */
  Py_BEGIN_ALLOW_THREADS plugin->api->log(plugin->host, level, message);
  Py_END_ALLOW_THREADS
}

/* traceback.format_exception(...) joined, or NULL. Consumes nothing; clears any new error. */
static PyObject *formatted(PyObject *type, PyObject *value, PyObject *traceback) {
  PyObject *module = PyImport_ImportModule("traceback");
  if (!module) return NULL;
  PyObject *lines = PyObject_CallMethod(module, "format_exception", "OOO", type, value ? value : Py_None,
                                        traceback ? traceback : Py_None);
  Py_DECREF(module);
  if (!lines) return NULL;
  PyObject *empty = PyUnicode_FromString("");
  PyObject *text = empty ? PyUnicode_Join(empty, lines) : NULL;
  Py_XDECREF(empty);
  Py_DECREF(lines);
  return text;
}

void py_log_exception(py_plugin *plugin, const char *where) {
  if (!PyErr_Occurred()) return;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  plugin->callback_errors++;
  PyObject *text = formatted(type, value, traceback);
  const char *body = text ? PyUnicode_AsUTF8(text) : NULL;
  if (!body) {
    PyErr_Clear();
    body = "(the traceback could not be formatted)\n";
  }
  size_t length = strlen(where) + strlen(body) + 64;
  char *message = malloc(length);
  if (message) {
    snprintf(message, length, "%s raised (error %llu of this instance):\n%s", where,
             (unsigned long long)plugin->callback_errors, body);
    size_t end = strlen(message);
    while (end > 0 && message[end - 1] == '\n') message[--end] = 0;
    py_host_log(plugin, PB_LOG_ERROR, message);
    free(message);
  }
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
}

void py_exception_summary(char *buffer, size_t capacity) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  PyObject *text = value ? PyObject_Str(value) : NULL;
  const char *name = type ? ((PyTypeObject *)type)->tp_name : "error";
  const char *detail = text ? PyUnicode_AsUTF8(text) : NULL;
  if (!detail) PyErr_Clear();
  snprintf(buffer, capacity, "%s%s%s", name, detail && *detail ? ": " : "", detail ? detail : "");
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
}

void py_take_exception(py_plugin *plugin, const char *where, char *summary, size_t capacity) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  Py_XINCREF(type);
  Py_XINCREF(value);
  Py_XINCREF(traceback);
  PyErr_Restore(type, value, traceback);
  py_exception_summary(summary, capacity); /* takes the first references */
  PyErr_Restore(type, value, traceback);
  if (plugin) py_log_exception(plugin, where);
  PyErr_Clear();
}
