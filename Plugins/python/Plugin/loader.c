/* The interpreter and the user's module: CPython started without its signal handlers (the
 * plugin host owns signals), a venv's site-packages put first on sys.path, the module imported
 * from a path or by name. The import logic is Python, run once in the embedded interpreter. */
#define _GNU_SOURCE /* dladdr */
#include "python_plugin.h"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const char bootstrap_source[] =
    "import glob, importlib, importlib.util, os, site, sys\n"
    "class ConfigError(Exception):\n"
    "    pass\n"
    "def add_venv(venv):\n"
    "    if not os.path.isdir(venv):\n"
    "        raise ConfigError(f'venv = \"{venv}\": no such directory')\n"
    "    want = f'python{sys.version_info[0]}.{sys.version_info[1]}'\n"
    "    found = sorted(glob.glob(os.path.join(venv, 'lib', 'python3*', 'site-packages')))\n"
    "    matching = [d for d in found if os.path.basename(os.path.dirname(d)) == want]\n"
    "    if not matching:\n"
    "        have = ', '.join(os.path.basename(os.path.dirname(d)) for d in found) or 'none'\n"
    "        raise ConfigError(f'venv = \"{venv}\": no lib/{want}/site-packages inside (found: {have}); '\n"
    "                          f'this plugin embeds {want}: make the venv with python3 -m venv')\n"
    "    before = list(sys.path)\n"
    "    site.addsitedir(matching[0])\n"
    "    added = [p for p in sys.path if p not in before]\n"
    "    sys.path[:] = added + before\n"
    "def load(module, venv):\n"
    "    if venv:\n"
    "        add_venv(venv)\n"
    "    if module.endswith('.py') or os.sep in module:\n"
    "        path = os.path.abspath(module)\n"
    "        if not os.path.isfile(path):\n"
    "            raise ConfigError(f'module = \"{module}\": no such file')\n"
    "        name = os.path.splitext(os.path.basename(path))[0]\n"
    "        sys.path.insert(0, os.path.dirname(path))\n"
    "        spec = importlib.util.spec_from_file_location(name, path)\n"
    "        loaded = importlib.util.module_from_spec(spec)\n"
    "        sys.modules[name] = loaded\n"
    "        spec.loader.exec_module(loaded)\n"
    "    else:\n"
    "        try:\n"
    "            loaded = importlib.import_module(module)\n"
    "        except ModuleNotFoundError as error:\n"
    "            if error.name and module.startswith(error.name):\n"
    "                raise ConfigError(f'module = \"{module}\": no module named {error.name!r} on sys.path '\n"
    "                                  f'(a path to a .py file, or a module importable from the venv)') from None\n"
    "            raise\n"
    "    if not callable(getattr(loaded, 'create', None)):\n"
    "        raise ConfigError(f'module = \"{module}\": defines no create(ctx, config)')\n"
    "    return loaded\n";

/* The host loads this plugin RTLD_LOCAL, so libpython's symbols are not global, and CPython's
 * extension modules (lib-dynload: _ctypes, _ssl, _sqlite3, numpy, ...) do not link against
 * libpython: they expect its symbols in the global scope. Re-open the already loaded libpython
 * RTLD_GLOBAL (this process runs only this instance, so nothing else can be interposed on). */
static int promote_libpython(void) {
  Dl_info info;
  if (!dladdr((void *)&Py_InitializeFromConfig, &info) || !info.dli_fname) return -1;
  return dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) ? 0 : -1;
}

int py_interpreter_start(void) {
  if (promote_libpython()) return -1;
  if (PyImport_AppendInittab("patchbay", py_patchbay_module_init) < 0) return -1;
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0; /* SIGINT, SIGPIPE, ... stay the host's */
  config.parse_argv = 0;
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, "patchbay-python");
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  return PyStatus_Exception(status) ? -1 : 0;
}

/* The bootstrap module, made once. */
static PyObject *bootstrap(void) {
  static PyObject *module;
  if (module) return module;
  PyObject *code = Py_CompileString(bootstrap_source, "<patchbay-python bootstrap>", Py_file_input);
  if (!code) return NULL;
  module = PyImport_ExecCodeModule("_patchbay_bootstrap", code);
  Py_DECREF(code);
  return module;
}

PyObject *py_load_user_module(const char *module, const char *venv, pb_error *error) {
  PyObject *loader = bootstrap();
  PyObject *loaded = loader ? PyObject_CallMethod(loader, "load", "sz", module, venv) : NULL;
  if (loaded) return loaded;
  /* The exception is fetched first: attribute lookups must not run with one pending. */
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  PyObject *config_error = loader ? PyObject_GetAttrString(loader, "ConfigError") : NULL;
  int is_config_error = config_error && type && PyErr_GivenExceptionMatches(type, config_error);
  Py_XDECREF(config_error);
  PyErr_Clear();
  if (is_config_error) {
    PyObject *text = value ? PyObject_Str(value) : NULL;
    const char *message = text ? PyUnicode_AsUTF8(text) : NULL;
    snprintf(error->message, PB_ERROR_CAPACITY, "%s", message ? message : module);
    PyErr_Clear();
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
  } else {
    /* A syntax error, or the module's own import failing: the one-line reason for check, the
     * traceback in the log. */
    char summary[PB_ERROR_CAPACITY];
    PyErr_Restore(type, value, traceback);
    py_take_exception(py_plugin_current, "importing the module", summary, sizeof summary);
    snprintf(error->message, PB_ERROR_CAPACITY, "module = \"%.200s\": importing it raised %.250s", module, summary);
  }
  return NULL;
}
