// libschedkit_pyembed.so: the Python interpreter embedded in the `schedkit` command, loaded
// by LoadPythonPolicy (schedkit/plugin.h) only when a Python policy is asked for, so the
// command itself does not link libpython.
//
// Like a plugin, it links no copy of the core library: its calls land in the executable's
// (ENABLE_EXPORTS, cmake/plugin.cmake), and it carries the plugin ABI symbol, checked
// before any of its code runs. Inside the interpreter `import schedkit` is the module built
// into this library (the same bindings as the extension module), so a policy's classes
// subclass the very schedkit.Policy the bridge knows.
//
// The GIL: the interpreter starts on the first registration and then releases the GIL for
// good; every entry into Python (here, and each decision in policy_bridge.cc) takes it for
// its duration, from whichever thread. The interpreter is never finalized: policies and
// registries may hold Python objects until the process exits.
#include <dlfcn.h>
#include <pybind11/embed.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "policy_bridge.h"
#include "schedkit/plugin.h"
#include "schedkit/registry.h"

namespace py = pybind11;

namespace schedkit {

void BindModule(py::module_& m);  // python/bindings/schedkit_module.cc

namespace {

void StartPython() {
  static bool started = false;
  if (started) return;
  started = true;
  // Extension modules (numpy's, ...) do not link libpython: they expect its symbols global,
  // which they are not in a library opened with RTLD_LOCAL. Make them so.
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&Py_Initialize), &info) != 0 && info.dli_fname != nullptr) {
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
  // As pybind11's default (the environment's PYTHONPATH counts), but: the command's own
  // signal handling (sweep's SIGINT, serve's SIGTERM) stays in force, and the interpreter
  // the library was built for names itself, so that its prefix (standard library,
  // site-packages) is that interpreter's, not that of whichever python3 comes first on PATH.
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.isolated = 0;
  config.use_environment = 1;
  config.install_signal_handlers = 0;
  PyConfig_SetBytesString(&config, &config.program_name, SCHEDKIT_PYTHON_EXECUTABLE);
  py::initialize_interpreter(&config, 0, nullptr, /*add_program_dir_to_path=*/false);
  PyEval_SaveThread();
  // What a policy printed may wait in sys.stdout's buffer (a pipe is not line-buffered),
  // and the interpreter is never finalized: flush at exit instead.
  std::atexit([] {
    py::gil_scoped_acquire gil;
    for (const char* stream : {"stdout", "stderr"}) {
      if (PyObject* f = PySys_GetObject(stream); f != nullptr && f != Py_None) {
        PyObject* r = PyObject_CallMethod(f, "flush", nullptr);
        if (r == nullptr) PyErr_Clear();
        Py_XDECREF(r);
      }
    }
  });
}

bool IsFile(const std::string& module) {
  return module.find('/') != std::string::npos || module.ends_with(".py");
}

// Imports MODULE (a file or a module name) with `dir` first on sys.path.
py::object Import(const std::string& module, const std::string& dir) {
  py::list path = py::module_::import("sys").attr("path");
  auto put_first = [&](const std::string& d) {
    const py::str entry(d);
    if (!path.contains(entry)) path.insert(0, entry);
  };
  if (!IsFile(module)) {
    put_first(dir);
    return py::module_::import("importlib").attr("import_module")(module);
  }
  // LoadPythonPolicy made the path absolute and checked that it is a file.
  const std::filesystem::path file(module);
  put_first(file.parent_path().string());
  const std::string name = file.stem().string();
  py::module_ util = py::module_::import("importlib.util");
  py::object spec = util.attr("spec_from_file_location")(name, file.string());
  py::object mod = util.attr("module_from_spec")(spec);
  py::module_::import("sys").attr("modules")[py::str(name)] = mod;
  spec.attr("loader").attr("exec_module")(mod);
  return mod;
}

Status Register(const std::string& spec, std::string dir, Registries* into) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size()) {
    return Status::InvalidArgument(
        spec + ": expected MODULE:CLASS (a module name or a .py file, then a class name)");
  }
  const std::string module = spec.substr(0, colon), cls = spec.substr(colon + 1);
  StartPython();
  py::gil_scoped_acquire gil;
  try {
    if (dir.empty()) dir = py::module_::import("os").attr("getcwd")().cast<std::string>();
    py::object mod = Import(module, dir);
    if (!py::hasattr(mod, cls.c_str())) {
      return Status::InvalidArgument(spec + ": module '" + module + "' has no class '" + cls + "'");
    }
    py::object c = mod.attr(cls.c_str());
    if (!PyType_Check(c.ptr())) {
      return Status::InvalidArgument(spec + ": '" + cls + "' is not a class");
    }
    RegisterPythonPolicy(c, PythonPolicyObject::kClass, PythonErrors::kFail, into);
    return Status::Ok();
  } catch (...) {
    return Status::InvalidArgument(spec + ": " + PythonErrorLine());
  }
}

}  // namespace
}  // namespace schedkit

PYBIND11_EMBEDDED_MODULE(schedkit, m) { schedkit::BindModule(m); }

extern "C" __attribute__((visibility("default"), used))
const char SCHEDKIT_PLUGIN_ABI_SYMBOL[] = SCHEDKIT_PLUGIN_ABI;

extern "C" __attribute__((visibility("default"))) void schedkit_python_register(
    const char* spec, const char* search_dir, schedkit::Registries* into,
    schedkit::Status* status) {
  *status = schedkit::Register(spec, search_dir, into);
}
