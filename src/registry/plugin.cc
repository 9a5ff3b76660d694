#include "schedkit/plugin.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "registry/builtins.h"

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

// Runs the plugin's registration into scratch registries and, if all is well, adds what
// it registered to the process's. The scratch copies (and their factories, which are
// the plugin's code) are gone when this returns, so the caller may unload on failure.
Status RegisterFrom(void* handle, const std::string& path) {
  const char* abi = static_cast<const char*>(
      dlsym(handle, SCHEDKIT_STRINGIFY(SCHEDKIT_PLUGIN_ABI_SYMBOL)));
  auto reg = reinterpret_cast<RegisterFn>(
      dlsym(handle, SCHEDKIT_STRINGIFY(SCHEDKIT_PLUGIN_REGISTER_SYMBOL)));
  if (abi == nullptr || reg == nullptr) {
    return Status::InvalidArgument(path + ": not a schedkit plugin (no symbol " +
                                   (abi == nullptr ? SCHEDKIT_STRINGIFY(SCHEDKIT_PLUGIN_ABI_SYMBOL)
                                                   : SCHEDKIT_STRINGIFY(
                                                         SCHEDKIT_PLUGIN_REGISTER_SYMBOL)) +
                                   "; SCHEDKIT_PLUGIN in schedkit/plugin.h defines it)");
  }
  const std::string plugin_abi(abi, strnlen(abi, 200));
  if (plugin_abi != SCHEDKIT_PLUGIN_ABI) {
    return Status::InvalidArgument(path + ": built against " + Quoted(plugin_abi) +
                                   ", this is " + Quoted(SCHEDKIT_PLUGIN_ABI) +
                                   ": rebuild the plugin against this schedkit");
  }
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
  if (added.policies.entries().empty() && added.placements.entries().empty() &&
      added.admissions.entries().empty()) {
    return Status::InvalidArgument(path +
                                   ": registers nothing (no policy, placement or admission)");
  }
  Registries& process = ProcessRegistries();
  SCHEDKIT_RETURN_IF_ERROR(
      CheckAdditions(path, "policy", added.policies, process.policies, &PluginInfo::policies));
  SCHEDKIT_RETURN_IF_ERROR(CheckAdditions(path, "placement", added.placements,
                                          process.placements, &PluginInfo::placements));
  SCHEDKIT_RETURN_IF_ERROR(CheckAdditions(path, "admission", added.admissions,
                                          process.admissions, &PluginInfo::admissions));
  PluginInfo info;
  info.path = path;
  Add(added.policies, &process.policies, &info.policies);
  Add(added.placements, &process.placements, &info.placements);
  Add(added.admissions, &process.admissions, &info.admissions);
  State().plugins.push_back(std::move(info));
  State().handles.push_back(handle);
  return Status::Ok();
}

}  // namespace

Status LoadPlugin(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Status::NotFound(path + ": no such plugin file");
  }
  // An absolute path: a bare "x.so" would make dlopen search the library path instead.
  const std::string absolute = std::filesystem::absolute(path, ec).string();
  dlerror();
  void* handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::InvalidArgument(path + ": cannot load: " +
                                   (why != nullptr ? why : "unknown dlopen error"));
  }
  const std::vector<void*>& handles = State().handles;
  if (std::find(handles.begin(), handles.end(), handle) != handles.end()) {
    dlclose(handle);  // Loaded already (maybe under another name): one reference is enough.
    return Status::Ok();
  }
  Status st = RegisterFrom(handle, path);
  if (!st.ok()) dlclose(handle);
  return st;
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
