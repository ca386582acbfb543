/* Values across the boundary: pb_value to Python types and back, type-checked with errors
 * that name the port and the expected type. */
#include "python_plugin.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {NULL, "trigger", "bool", "integer", "number", "text", "color", "light", "button"};
static const char *const action_names[] = {NULL, "down", "up", "click", "double_click", "hold"};

const char *py_type_name(pb_value_type type) {
  return type >= PB_VALUE_TRIGGER && type <= PB_VALUE_BUTTON ? type_names[type] : "unknown";
}

int py_type_from_name(const char *name, pb_value_type *out) {
  for (pb_value_type type = PB_VALUE_TRIGGER; type <= PB_VALUE_BUTTON; type++) {
    if (strcmp(name, type_names[type]) == 0) {
      *out = type;
      return 0;
    }
  }
  return -1;
}

/* What a value of each type looks like in Python, for error messages. */
static const char *expected(pb_value_type type) {
  switch (type) {
  case PB_VALUE_TRIGGER: return "trigger (None)";
  case PB_VALUE_BOOL: return "bool (True or False)";
  case PB_VALUE_INTEGER: return "integer (int)";
  case PB_VALUE_NUMBER: return "number (float or int)";
  case PB_VALUE_TEXT: return "text (str)";
  case PB_VALUE_COLOR: return "color (dict with hue, saturation, brightness)";
  case PB_VALUE_LIGHT: return "light (dict with on, brightness, color, color_temperature, transition_ms)";
  case PB_VALUE_BUTTON: return "button (dict with action, queued, age_ms, or an action name)";
  default: return "unknown";
  }
}

static PyObject *color_dict(const pb_color *color, int with_brightness) {
  if (with_brightness)
    return Py_BuildValue("{s:d,s:d,s:d}", "hue", color->hue, "saturation", color->saturation, "brightness",
                         color->brightness);
  return Py_BuildValue("{s:d,s:d}", "hue", color->hue, "saturation", color->saturation);
}

static int set_item(PyObject *dict, const char *key, PyObject *item) {
  if (!item) return -1;
  int result = PyDict_SetItemString(dict, key, item);
  Py_DECREF(item);
  return result;
}

static PyObject *light_dict(const pb_light *light) {
  PyObject *dict = PyDict_New();
  if (!dict) return NULL;
  if (((light->fields & PB_LIGHT_ON) && set_item(dict, "on", PyBool_FromLong(light->on))) ||
      ((light->fields & PB_LIGHT_BRIGHTNESS) && set_item(dict, "brightness", PyFloat_FromDouble(light->brightness))) ||
      ((light->fields & PB_LIGHT_COLOR) && set_item(dict, "color", color_dict(&light->color, 0))) ||
      ((light->fields & PB_LIGHT_COLOR_TEMPERATURE) &&
       set_item(dict, "color_temperature", PyFloat_FromDouble(light->color_temperature))) ||
      ((light->fields & PB_LIGHT_TRANSITION) &&
       set_item(dict, "transition_ms", PyLong_FromUnsignedLong(light->transition_ms)))) {
    Py_DECREF(dict);
    return NULL;
  }
  return dict;
}

PyObject *py_value_from_pb(const pb_value *value) {
  switch (value->type) {
  case PB_VALUE_TRIGGER: Py_RETURN_NONE;
  case PB_VALUE_BOOL: return PyBool_FromLong(value->u.boolean != 0);
  case PB_VALUE_INTEGER: return PyLong_FromLongLong(value->u.integer);
  case PB_VALUE_NUMBER: return PyFloat_FromDouble(value->u.number);
  case PB_VALUE_TEXT: return PyUnicode_DecodeUTF8(value->u.text.data, value->u.text.length, "replace");
  case PB_VALUE_COLOR: return color_dict(&value->u.color, 1);
  case PB_VALUE_LIGHT: return light_dict(&value->u.light);
  case PB_VALUE_BUTTON: {
    pb_button_action action = value->u.button.action;
    const char *name = action >= PB_BUTTON_DOWN && action <= PB_BUTTON_HOLD ? action_names[action] : "unknown";
    return Py_BuildValue("{s:s,s:O,s:k}", "action", name, "queued", value->u.button.queued ? Py_True : Py_False,
                         "age_ms", (unsigned long)value->u.button.age_ms);
  }
  default: PyErr_Format(PyExc_ValueError, "unknown value type %u", value->type); return NULL;
  }
}

static int wrong_type(PyObject *object, pb_value_type type, const char *port) {
  PyErr_Format(PyExc_TypeError, "port '%s' expects %s, got %s", port, expected(type), Py_TYPE(object)->tp_name);
  return -1;
}

/* A finite number from an int or float (not a bool); `what` names it in errors. */
static int number_of(PyObject *object, const char *port, const char *what, double *out) {
  if (PyBool_Check(object) || !(PyLong_Check(object) || PyFloat_Check(object))) {
    PyErr_Format(PyExc_TypeError, "port '%s': %s must be a number, got %s", port, what, Py_TYPE(object)->tp_name);
    return -1;
  }
  double number = PyFloat_AsDouble(object);
  if (number == -1.0 && PyErr_Occurred()) return -1;
  if (!isfinite(number)) {
    PyErr_Format(PyExc_ValueError, "port '%s': %s must be finite", port, what);
    return -1;
  }
  *out = number;
  return 0;
}

static int in_range(double number, double low, double high, int high_open, const char *port, const char *what) {
  if (number < low || number > high || (high_open && number == high)) {
    char message[256]; /* PyErr_Format has no %g */
    snprintf(message, sizeof message, "port '%.64s': %s must be in [%g, %g%s, got %g", port, what, low, high,
             high_open ? ")" : "]", number);
    PyErr_SetString(PyExc_ValueError, message);
    return -1;
  }
  return 0;
}

/* Refuses keys of `dict` not in `known` (a NULL-terminated list), so a typo is an error. */
static int only_keys(PyObject *dict, const char *const *known, const char *port, const char *what) {
  PyObject *key, *item;
  Py_ssize_t position = 0;
  while (PyDict_Next(dict, &position, &key, &item)) {
    const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    int found = 0;
    for (const char *const *k = known; name && *k; k++) found |= strcmp(name, *k) == 0;
    if (!found) {
      PyErr_Format(PyExc_TypeError, "port '%s': unknown %s key %R", port, what, key);
      return -1;
    }
  }
  return 0;
}

static int color_from(PyObject *object, const char *port, int need_brightness, pb_color *out) {
  static const char *const keys[] = {"hue", "saturation", "brightness", NULL};
  if (!PyDict_Check(object)) {
    PyErr_Format(PyExc_TypeError, "port '%s': a color must be a dict with hue, saturation%s, got %s", port,
                 need_brightness ? ", brightness" : "", Py_TYPE(object)->tp_name);
    return -1;
  }
  if (only_keys(object, keys, port, "color")) return -1;
  double *fields[] = {&out->hue, &out->saturation, &out->brightness};
  for (int i = 0; i < 3; i++) {
    PyObject *item = PyDict_GetItemString(object, keys[i]);
    if (!item) {
      if (i == 2 && !need_brightness) continue;
      PyErr_Format(PyExc_TypeError, "port '%s': color needs '%s'", port, keys[i]);
      return -1;
    }
    if (number_of(item, port, keys[i], fields[i])) return -1;
  }
  if (in_range(out->hue, 0, 360, 1, port, "hue") || in_range(out->saturation, 0, 100, 0, port, "saturation") ||
      in_range(out->brightness, 0, 100, 0, port, "brightness"))
    return -1;
  return 0;
}

static int light_from(PyObject *object, const char *port, pb_light *out) {
  static const char *const keys[] = {"on", "brightness", "color", "color_temperature", "transition_ms", NULL};
  if (only_keys(object, keys, port, "light")) return -1;
  PyObject *item;
  if ((item = PyDict_GetItemString(object, "on"))) {
    if (!PyBool_Check(item)) {
      PyErr_Format(PyExc_TypeError, "port '%s': light 'on' must be a bool, got %s", port, Py_TYPE(item)->tp_name);
      return -1;
    }
    out->fields |= PB_LIGHT_ON;
    out->on = item == Py_True;
  }
  if ((item = PyDict_GetItemString(object, "brightness"))) {
    if (number_of(item, port, "brightness", &out->brightness) ||
        in_range(out->brightness, 0, 100, 0, port, "brightness"))
      return -1;
    out->fields |= PB_LIGHT_BRIGHTNESS;
  }
  if ((item = PyDict_GetItemString(object, "color"))) {
    if (color_from(item, port, 0, &out->color)) return -1;
    out->fields |= PB_LIGHT_COLOR;
  }
  if ((item = PyDict_GetItemString(object, "color_temperature"))) {
    if (number_of(item, port, "color_temperature", &out->color_temperature) ||
        in_range(out->color_temperature, 153, 500, 0, port, "color_temperature"))
      return -1;
    out->fields |= PB_LIGHT_COLOR_TEMPERATURE;
  }
  if ((item = PyDict_GetItemString(object, "transition_ms"))) {
    long long ms = PyBool_Check(item) || !PyLong_Check(item) ? -1 : PyLong_AsLongLong(item);
    if (ms < 0 || ms > UINT32_MAX) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "port '%s': transition_ms must be an int in [0, %u]", port, UINT32_MAX);
      return -1;
    }
    out->transition_ms = (uint32_t)ms;
    out->fields |= PB_LIGHT_TRANSITION;
  }
  return 0;
}

static int action_from(PyObject *object, const char *port, pb_button_action *out) {
  const char *name = PyUnicode_Check(object) ? PyUnicode_AsUTF8(object) : NULL;
  for (pb_button_action action = PB_BUTTON_DOWN; name && action <= PB_BUTTON_HOLD; action++) {
    if (strcmp(name, action_names[action]) == 0) {
      *out = action;
      return 0;
    }
  }
  PyErr_Format(PyExc_ValueError, "port '%s': button action must be one of down, up, click, double_click, hold; got %R",
               port, object);
  return -1;
}

static int button_from(PyObject *object, const char *port, pb_button *out) {
  static const char *const keys[] = {"action", "queued", "age_ms", NULL};
  if (PyUnicode_Check(object)) return action_from(object, port, &out->action);
  if (only_keys(object, keys, port, "button")) return -1;
  PyObject *action = PyDict_GetItemString(object, "action");
  if (!action) {
    PyErr_Format(PyExc_TypeError, "port '%s': button needs 'action'", port);
    return -1;
  }
  if (action_from(action, port, &out->action)) return -1;
  PyObject *queued = PyDict_GetItemString(object, "queued");
  if (queued) {
    if (!PyBool_Check(queued)) {
      PyErr_Format(PyExc_TypeError, "port '%s': button 'queued' must be a bool", port);
      return -1;
    }
    out->queued = queued == Py_True;
  }
  PyObject *age = PyDict_GetItemString(object, "age_ms");
  if (age) {
    long long ms = PyBool_Check(age) || !PyLong_Check(age) ? -1 : PyLong_AsLongLong(age);
    if (ms < 0 || ms > UINT32_MAX) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "port '%s': button 'age_ms' must be an int in [0, %u]", port, UINT32_MAX);
      return -1;
    }
    out->age_ms = (uint32_t)ms;
  }
  return 0;
}

int py_value_to_pb(PyObject *object, pb_value_type type, const char *port, pb_value *out) {
  memset(out, 0, sizeof(*out));
  out->size = sizeof(pb_value);
  out->type = type;
  switch (type) {
  case PB_VALUE_TRIGGER:
    if (object != Py_None) return wrong_type(object, type, port);
    return 0;
  case PB_VALUE_BOOL:
    if (!PyBool_Check(object)) return wrong_type(object, type, port);
    out->u.boolean = object == Py_True;
    return 0;
  case PB_VALUE_INTEGER: {
    if (PyBool_Check(object) || !PyLong_Check(object)) return wrong_type(object, type, port);
    int overflow = 0;
    long long integer = PyLong_AsLongLongAndOverflow(object, &overflow);
    if (overflow) {
      PyErr_Format(PyExc_ValueError, "port '%s': integer %R does not fit in 64 bits", port, object);
      return -1;
    }
    out->u.integer = integer;
    return 0;
  }
  case PB_VALUE_NUMBER:
    if (PyBool_Check(object) || !(PyLong_Check(object) || PyFloat_Check(object))) return wrong_type(object, type, port);
    return number_of(object, port, "the number", &out->u.number);
  case PB_VALUE_TEXT: {
    if (!PyUnicode_Check(object)) return wrong_type(object, type, port);
    Py_ssize_t length = 0;
    const char *data = PyUnicode_AsUTF8AndSize(object, &length);
    if (!data) return -1;
    if (length > 4096) {
      PyErr_Format(PyExc_ValueError, "port '%s': text is %zd bytes of UTF-8, at most 4096", port, length);
      return -1;
    }
    out->u.text.data = data;
    out->u.text.length = (uint32_t)length;
    return 0;
  }
  case PB_VALUE_COLOR:
    if (!PyDict_Check(object)) return wrong_type(object, type, port);
    return color_from(object, port, 1, &out->u.color);
  case PB_VALUE_LIGHT:
    if (!PyDict_Check(object)) return wrong_type(object, type, port);
    return light_from(object, port, &out->u.light);
  case PB_VALUE_BUTTON:
    if (!PyDict_Check(object) && !PyUnicode_Check(object)) return wrong_type(object, type, port);
    return button_from(object, port, &out->u.button);
  default: PyErr_Format(PyExc_ValueError, "port '%s' has an unknown type %u", port, type); return -1;
  }
}
