// Plugins: policies, placement and admission modules built outside the tree, against an
// installed schedkit (find_package(schedkit), target schedkit::plugin), and loaded at run
// time by every command that takes a policy (`--plugin lib.so`; docs/write-a-policy.md).
//
// A plugin is one shared object whose code registers its modules by name, exactly as a
// built-in does, inside the block that SCHEDKIT_PLUGIN opens:
//
//   #include "schedkit/ordering_policy.h"
//   #include "schedkit/plugin.h"
//
//   SCHEDKIT_PLUGIN(registries) {
//     return schedkit::RegisterOrderingPolicy({.name = "my-policy", ...}, registries);
//   }
//
// A plugin links against headers only: the `schedkit` executable exports the library's
// symbols, so the plugin's code calls the very library (and fills the very registries)
// of the process that loads it. A plugin linking its own copy of the library would not.
#ifndef SCHEDKIT_PLUGIN_H_
#define SCHEDKIT_PLUGIN_H_

#include <string>
#include <vector>

#include "schedkit/plugin_abi.h"  // Generated at build time: SCHEDKIT_PLUGIN_ABI.
#include "schedkit/registry.h"
#include "schedkit/status.h"

// The two symbols every plugin exports (SCHEDKIT_PLUGIN defines both):
//   const char SCHEDKIT_PLUGIN_ABI_SYMBOL[]: SCHEDKIT_PLUGIN_ABI as the plugin saw it,
//     checked before anything of the plugin runs;
//   void SCHEDKIT_PLUGIN_REGISTER_SYMBOL(schedkit::Registries*, schedkit::Status*):
//     registers the plugin's modules and says whether it could.
#define SCHEDKIT_PLUGIN_ABI_SYMBOL schedkit_plugin_abi
#define SCHEDKIT_PLUGIN_REGISTER_SYMBOL schedkit_plugin_register

// Opens the body of the plugin's registration function: a block that registers modules
// into `registries` (a schedkit::Registries*) and returns a schedkit::Status.
#define SCHEDKIT_PLUGIN(registries)                                                          \
  static ::schedkit::Status SchedkitPluginRegister(::schedkit::Registries* registries);      \
  extern "C" __attribute__((visibility("default"), used))                                    \
  const char SCHEDKIT_PLUGIN_ABI_SYMBOL[] = SCHEDKIT_PLUGIN_ABI;                             \
  extern "C" __attribute__((visibility("default"))) void SCHEDKIT_PLUGIN_REGISTER_SYMBOL(   \
      ::schedkit::Registries* into, ::schedkit::Status* status) {                            \
    *status = SchedkitPluginRegister(into);                                                  \
  }                                                                                          \
  static ::schedkit::Status SchedkitPluginRegister(::schedkit::Registries* registries)

namespace schedkit {

// What one loaded plugin registered, by kind, in its registration order.
struct PluginInfo {
  std::string path;  // As the user gave it.
  std::vector<std::string> policies, placements, admissions;
};

// Loads the plugin at `path` (dlopen) and adds every module it registers to the
// process's registries (BuiltinRegistries()), where every command and MakePolicy find
// them by name. Loading a file that is already loaded does nothing. Fails, with one
// line that starts with `path`, if the file is missing, is not a shared object (the
// loader's text), is not a schedkit plugin, was built against other schedkit headers
// (its SCHEDKIT_PLUGIN_ABI differs), fails its registration, registers nothing, or
// registers a name that a built-in or an earlier plugin has; then nothing of it is added.
// REQUIRES: no run is in progress (runs read the registries without locks).
Status LoadPlugin(const std::string& path);

// Loads a policy written in Python (docs/write-a-policy.md, "In Python"). `spec` is
// MODULE:CLASS: MODULE a module name, looked up on Python's path with `search_dir` (the
// current directory if empty) first, or a file (a name with '/' or ending in .py, relative
// to `search_dir`), whose folder goes first on the path; CLASS has key(job, now) or
// decide(view, events). The class is registered under its `name` attribute (default: the
// class's name) as a plugin's policy is, with origin "python MODULE:CLASS". The Python
// interpreter is embedded by a separate library (libschedkit_pyembed.so, beside the
// executable or in ../lib/schedkit/; $SCHEDKIT_PYTHON_EMBED overrides), loaded on the
// first call, so a process that loads no Python policy never loads libpython. Loading one
// spec twice does nothing. Fails with one line starting with `spec`: no such module or
// class, an exception while importing it, a bad attribute, a name taken, no library.
// Every run then calls CLASS() for its own policy object; an exception raised in a
// decision ends that run with Decisions::Fail and the exception's last traceback line.
// REQUIRES: no run is in progress.
Status LoadPythonPolicy(const std::string& spec, const std::string& search_dir = "");

// LoadPlugin on each path in order; stops at the first failure.
Status LoadPlugins(const std::vector<std::string>& paths);

// The plugins loaded so far, in load order.
const std::vector<PluginInfo>& LoadedPlugins();

// The loaded plugin that registered the module `name` of `kind` (&PluginInfo::policies,
// &PluginInfo::placements or &PluginInfo::admissions); null for a built-in or unknown name.
const PluginInfo* PluginOf(std::vector<std::string> PluginInfo::*kind, const std::string& name);

}  // namespace schedkit

#endif  // SCHEDKIT_PLUGIN_H_
