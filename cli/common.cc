#include <cstdio>

#include "commands.h"
#include "schedkit/plugin.h"

namespace schedkit::cli {

int Fail(const std::string& message) {
  std::fprintf(stderr, "schedkit: %s\n", message.c_str());
  return 1;
}

Result<std::map<std::string, std::string>> ParseOpts(const std::vector<std::string>& opts) {
  std::map<std::string, std::string> out;
  for (const std::string& o : opts) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--opt '" + o + "': expected key=value");
    }
    out[o.substr(0, eq)] = o.substr(eq + 1);
  }
  return out;
}

namespace {
std::vector<std::string> plugin_args;
std::vector<std::string> python_args;
}  // namespace

const std::vector<std::string>& PluginArgs() { return plugin_args; }

void AddPluginOption(CLI::App* command) {
  command->add_option("--plugin", plugin_args,
                      "load policies from this plugin first (repeatable; docs/write-a-policy.md)");
  command->add_option("--python", python_args,
                      "MODULE:CLASS: load a policy written in Python (a module name or a .py "
                      "file, then a class; repeatable; docs/write-a-policy.md)");
}

Status LoadPluginArgs() {
  SCHEDKIT_RETURN_IF_ERROR(LoadPlugins(PluginArgs()));
  for (const std::string& spec : python_args) {
    SCHEDKIT_RETURN_IF_ERROR(LoadPythonPolicy(spec));
  }
  return Status::Ok();
}

const std::vector<std::string>& PythonArgs() { return python_args; }

}  // namespace schedkit::cli
