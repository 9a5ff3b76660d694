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
}  // namespace

const std::vector<std::string>& PluginArgs() { return plugin_args; }

void AddPluginOption(CLI::App* command) {
  command->add_option("--plugin", plugin_args,
                      "load policies from this plugin first (repeatable; docs/write-a-policy.md)");
}

Status LoadPluginArgs() { return LoadPlugins(PluginArgs()); }

}  // namespace schedkit::cli
