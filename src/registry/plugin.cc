#include "schedkit/plugin.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "registry/builtins.h"
#include "registry/companion.h"

namespace schedkit {
namespace {

#define SCHEDKIT_STRINGIFY_(x) #x
#define SCHEDKIT_STRINGIFY(x) SCHEDKIT_STRINGIFY_(x)

using RegisterFn = void (*)(Registries*, Status*);

// Plugins stay loaded until the process exits: the registries hold their code.
struct Loaded {
  std::vector<PluginInfo> plugins;
  std::vector<void*> handles;  // Parallel to `plugins`.
};

Loaded& State() {
  static Loaded* const state = new Loaded();
  return *state;
}

// "the built-ins" or "plugin PATH": who registered the `kind` named `name`.
std::string Owner(std::vector<std::string> PluginInfo::*kind, const std::string& name) {
  const PluginInfo* p = PluginOf(kind, name);
  return p != nullptr ? "plugin " + p->path : "the built-ins";
}

Status NotAPlugin(const std::string& path, const char* symbol) {
  return Status::InvalidArgument(path + ": not a schedkit plugin (no symbol " + symbol +
                                 "; SCHEDKIT_PLUGIN in schedkit/plugin.h defines it)");
}

// A name a user can type wherever a module is named: in `compare --policies A,B`, in a
// sweep file, and as the start of a sweep run's folder name. The built-ins' all qualify.
constexpr size_t kMaxNameChars = 64;
bool UsableName(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameChars) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// Fails on an entry of `added` whose name is unusable or `process` already has, or that has
// no factory.
template <typename R>
Status CheckAdditions(const std::string& path, const char* kind, const R& added, const R& process,
                      std::vector<std::string> PluginInfo::*names) {
  for (const auto& e : added.entries()) {
    if (!UsableName(e.name)) {
      return Status::InvalidArgument(path + ": " + kind + " name " + Quoted(e.name) + ": use 1.." +
                                     std::to_string(kMaxNameChars) +
                                     " letters, digits, '-', '_' or '.'");
    }
    if (process.Find(e.name) != nullptr) {
      return Status::AlreadyExists(path + ": " + kind + " '" + e.name +
                                   "' is already registered by " + Owner(names, e.name));
    }
    if (!e.factory) {
      return Status::InvalidArgument(path + ": " + kind + " '" + e.name + "' has no factory");
    }
  }
  return Status::Ok();
}

template <typename R>
void Add(const R& added, R* process, std::vector<std::string>* names) {
  for (const auto& e : added.entries()) {
    if (Status st = process->Register(e); !st.ok()) {  // CheckAdditions passed: a bug.
      std::fprintf(stderr, "schedkit: internal error: %s\n", st.message().c_str());
      std::abort();
    }
    names->push_back(e.name);
  }
}

// Fails unless `handle` is a schedkit plugin built against these headers: its ABI symbol
// is checked before any of its code runs.
Status CheckAbi(void* handle, const std::string& path) {
  const char* abi = static_cast<const char*>(
      dlsym(handle, SCHEDKIT_STRINGIFY(SCHEDKIT_PLUGIN_ABI_SYMBOL)));
  if (abi == nullptr) return NotAPlugin(path, SCHEDKIT_STRINGIFY(SCHEDKIT_PLUGIN_ABI_SYMBOL));
  const std::string plugin_abi(abi, strnlen(abi, 200));
  if (plugin_abi != SCHEDKIT_PLUGIN_ABI) {
    return Status::InvalidArgument(path + ": built against " + Quoted(plugin_abi) +
                                   ", this is " + Quoted(SCHEDKIT_PLUGIN_ABI) +
                                   ": rebuild the plugin against this schedkit");
  }
  return Status::Ok();
}

// Adds what a registration put into `added` to the process's registries, as the plugin
// `origin` (held open by `handle`), if every name is usable and free.
Status AddRegistered(const std::string& origin, const Registries& added, void* handle) {
  if (added.policies.entries().empty() && added.placements.entries().empty() &&
      added.admissions.entries().empty()) {
    return Status::InvalidArgument(origin +
                                   ": registers nothing (no policy, placement or admission)");
  }
  Registries& process = ProcessRegistries();
  SCHEDKIT_RETURN_IF_ERROR(
      CheckAdditions(origin, "policy", added.policies, process.policies, &PluginInfo::policies));
  SCHEDKIT_RETURN_IF_ERROR(CheckAdditions(origin, "placement", added.placements,
                                          process.placements, &PluginInfo::placements));
  SCHEDKIT_RETURN_IF_ERROR(CheckAdditions(origin, "admission", added.admissions,
                                          process.admissions, &PluginInfo::admissions));
  PluginInfo info;
  info.path = origin;
  Add(added.policies, &process.policies, &info.policies);
  Add(added.placements, &process.placements, &info.placements);
  Add(added.admissions, &process.admissions, &info.admissions);
  State().plugins.push_back(std::move(info));
  State().handles.push_back(handle);
  return Status::Ok();
}

// Runs the plugin's registration into scratch registries and, if all is well, adds what
// it registered to the process's. The scratch copies (and their factories, which are
// the plugin's code) are gone when this returns, so the caller may unload on failure.
Status RegisterFrom(void* handle, const std::string& path) {
  SCHEDKIT_RETURN_IF_ERROR(CheckAbi(handle, path));
  auto reg = reinterpret_cast<RegisterFn>(
      dlsym(handle, SCHEDKIT_STRINGIFY(SCHEDKIT_PLUGIN_REGISTER_SYMBOL)));
  if (reg == nullptr) return NotAPlugin(path, SCHEDKIT_STRINGIFY(SCHEDKIT_PLUGIN_REGISTER_SYMBOL));
  Registries added;
  Status st;
  try {
    reg(&added, &st);
  } catch (const std::exception& e) {
    st = Status::Internal(std::string("registration threw: ") + e.what());
  } catch (...) {
    st = Status::Internal("registration threw");
  }
  if (!st.ok()) return Status::InvalidArgument(path + ": " + st.message());
  return AddRegistered(path, added, handle);
}

// dlopen with every symbol bound at once; an absolute path, since a bare "x.so" would make
// dlopen search the library path instead.
Result<void*> Open(const std::string& path) {
  std::error_code ec;
  const std::string absolute = std::filesystem::absolute(path, ec).string();
  dlerror();
  void* handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::InvalidArgument(path + ": cannot load: " +
                                   (why != nullptr ? why : "unknown dlopen error"));
  }
  return handle;
}

// ---- Python policies ------------------------------------------------------------------

// The embedded-Python library's registration function (python/embed/embed.cc).
using PythonRegisterFn = void (*)(const char* spec, const char* search_dir, Registries* into,
                                  Status* status);
constexpr CompanionLibrary kPythonEmbed = {"libschedkit_pyembed.so", "schedkit_python_register",
                                           "SCHEDKIT_PYTHON_EMBED", "Python policies",
                                           "SCHEDKIT_BUILD_PYTHON"};

// The embedded-Python library's registration function, opened and checked once.
Result<PythonRegisterFn> PythonEmbed() {
  Result<void*> fn = CompanionEntry(kPythonEmbed);
  if (!fn.ok()) return fn.status();
  return reinterpret_cast<PythonRegisterFn>(*fn);
}

// Where the companion library is (CompanionEntry's search).
Result<std::string> CompanionPath(const CompanionLibrary& library) {
  const char* env = std::getenv(library.env_var);
  if (env != nullptr && *env != 0) return std::string(env);
  std::error_code ec;
  const std::filesystem::path exe_dir =
      std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  std::string where;
  for (const std::filesystem::path& p :
       {exe_dir / library.file, exe_dir.parent_path() / "lib/schedkit" / library.file}) {
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
    where += (where.empty() ? "" : ", ") + p.string();
  }
  return Status::NotFound(std::string(library.needed_for) + " need " + library.file +
                          " (schedkit built with " + library.build_option + "=ON); not in " +
                          where + "; $" + library.env_var + " names it");
}

// The companion library, opened and its ABI checked once per process.
Result<void*> OpenCompanion(const CompanionLibrary& library) {
  static auto* const opened = new std::vector<std::pair<std::string, void*>>();
  for (const auto& [file, handle] : *opened) {
    if (file == library.file) return handle;
  }
  Result<std::string> path = CompanionPath(library);
  if (!path.ok()) return path.status();
  Result<void*> handle = Open(*path);
  if (!handle.ok()) return handle.status();
  if (Status st = CheckAbi(*handle, *path); !st.ok()) {
    dlclose(*handle);
    return st;
  }
  opened->emplace_back(library.file, *handle);
  return *handle;
}

}  // namespace

Result<void*> CompanionEntry(const CompanionLibrary& library) {
  Result<void*> handle = OpenCompanion(library);
  if (!handle.ok()) return handle.status();
  void* entry = dlsym(*handle, library.entry);
  if (entry == nullptr) {
    return Status::InvalidArgument(std::string(library.file) + ": no symbol " + library.entry);
  }
  return entry;
}

Status LoadPlugin(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Status::NotFound(path + ": no such plugin file");
  }
  Result<void*> handle = Open(path);
  if (!handle.ok()) return handle.status();
  const std::vector<void*>& handles = State().handles;
  if (std::find(handles.begin(), handles.end(), *handle) != handles.end()) {
    dlclose(*handle);  // Loaded already (maybe under another name): one reference is enough.
    return Status::Ok();
  }
  Status st = RegisterFrom(*handle, path);
  if (!st.ok()) dlclose(*handle);
  return st;
}

Status LoadPythonPolicy(const std::string& spec, const std::string& search_dir) {
  // MODULE:CLASS with MODULE a file: its absolute path, so that one file named twice (on
  // the command line and in a sweep file) is one policy.
  std::string key = spec;
  const size_t colon = spec.rfind(':');
  if (colon != std::string::npos && colon > 0) {
    const std::string module = spec.substr(0, colon);
    if (module.find('/') != std::string::npos || module.ends_with(".py")) {
      std::filesystem::path file(module);
      if (file.is_relative() && !search_dir.empty()) file = std::filesystem::path(search_dir) / file;
      std::error_code ec;
      file = std::filesystem::absolute(file, ec).lexically_normal();
      if (!std::filesystem::is_regular_file(file, ec)) {
        return Status::NotFound(spec + ": no such Python file " + file.string());
      }
      key = file.string() + spec.substr(colon);
    }
  }
  const std::string origin = "python " + key;
  for (const PluginInfo& p : State().plugins) {
    if (p.path == origin) return Status::Ok();
  }
  Result<PythonRegisterFn> reg = PythonEmbed();
  if (!reg.ok()) return Status::InvalidArgument(spec + ": " + reg.status().message());
  Registries added;
  Status st;
  (*reg)(key.c_str(), search_dir.c_str(), &added, &st);
  if (!st.ok()) {  // Named as the user wrote it.
    const std::string& m = st.message();
    return Status::InvalidArgument(m.starts_with(key) ? spec + m.substr(key.size()) : m);
  }
  void* handle = nullptr;  // The embedded-Python library stays open for every policy.
  return AddRegistered(origin, added, handle);
}

Status LoadPlugins(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) SCHEDKIT_RETURN_IF_ERROR(LoadPlugin(path));
  return Status::Ok();
}

const std::vector<PluginInfo>& LoadedPlugins() { return State().plugins; }

const PluginInfo* PluginOf(std::vector<std::string> PluginInfo::*kind, const std::string& name) {
  for (const PluginInfo& p : State().plugins) {
    const std::vector<std::string>& names = p.*kind;
    if (std::find(names.begin(), names.end(), name) != names.end()) return &p;
  }
  return nullptr;
}

}  // namespace schedkit
