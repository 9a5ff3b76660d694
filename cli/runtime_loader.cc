// Opens the runtime's commands (cli/runtime_commands.cc, in libschedkit_runtime_commands.so)
// only when the command line may name one of them.
#include <string_view>

#include "commands.h"
#include "registry/companion.h"

namespace schedkit::cli {

#ifdef SCHEDKIT_WITH_RUNTIME

namespace {

using DefineFn = void (*)(CLI::App*, std::vector<Subcommand>*);
constexpr CompanionLibrary kRuntimeCommands = {
    "libschedkit_runtime_commands.so", "schedkit_define_runtime_commands",
    "SCHEDKIT_RUNTIME_COMMANDS", "the runtime's commands", "SCHEDKIT_BUILD_RUNTIME"};

// False when the command line names a command `app` has, or gives no command and asks for
// --version: no runtime command can be meant. Otherwise (a runtime command, a misspelt one,
// --help or nothing) the runtime's commands must be there to run, suggest or list.
bool MayNameRuntimeCommand(const CLI::App& app, int argc, const char* const* argv) {
  bool version = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--version") version = true;
    if (arg.empty() || arg[0] == '-') continue;  // No top-level option takes a value.
    const auto named = [&](const CLI::App* command) { return command->get_name() == arg; };
    return app.get_subcommands(named).empty();
  }
  return !version;
}

}  // namespace

Status AddRuntimeCommands(CLI::App& app, std::vector<Subcommand>& out, int argc,
                          const char* const* argv) {
  if (!MayNameRuntimeCommand(app, argc, argv)) return Status::Ok();
  Result<void*> define = CompanionEntry(kRuntimeCommands);
  if (!define.ok()) return define.status();
  reinterpret_cast<DefineFn>(*define)(&app, &out);
  return Status::Ok();
}

#else  // Built without the runtime (SCHEDKIT_BUILD_RUNTIME=OFF): no runtime commands.

Status AddRuntimeCommands(CLI::App&, std::vector<Subcommand>&, int, const char* const*) {
  return Status::Ok();
}

#endif

}  // namespace schedkit::cli
