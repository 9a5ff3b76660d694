// Runs the built `schedkit` binary (SCHEDKIT_CLI) for the command-line tests.
#ifndef SCHEDKIT_TESTS_CLI_RUNNER_H_
#define SCHEDKIT_TESTS_CLI_RUNNER_H_

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace schedkit::testing {

struct Outcome {
  int exit_code;       // -1 if the command could not run or did not exit normally.
  std::string output;  // stdout and stderr, interleaved.
};

// `schedkit ARGS` through the shell (ARGS may hold redirections and quotes).
inline Outcome RunCli(const std::string& args) {
  const std::string cmd = std::string(SCHEDKIT_CLI) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  Outcome o{-1, ""};
  if (pipe == nullptr) return o;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) o.output.append(buf, n);
  const int status = pclose(pipe);
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_CLI_RUNNER_H_
