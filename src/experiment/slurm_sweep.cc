#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "schedkit/experiment.h"

namespace schedkit {
namespace fs = std::filesystem;

namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command line; returns its exit status and stdout.
Result<std::pair<int, std::string>> Capture(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return Status::IoError("cannot run: " + command);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = pclose(pipe);
  return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Result<SlurmSweepReport> RunSweepOnSlurm(const SweepConfig& config,
                                         const SlurmSweepOptions& options) {
  const size_t grid = ExpandGrid(config).size();
  const int tasks = static_cast<int>(std::max<size_t>(1, std::min<size_t>(options.tasks, grid)));
  const std::string out = fs::absolute(options.out_dir).string();
  std::error_code ec;
  fs::create_directories(out + "/slurm", ec);
  if (ec) return Status::IoError(out + "/slurm: " + ec.message());
  // Each task records where it ran, then runs its shard.
  const std::string task = "echo node=$SLURMD_NODENAME; exec " + Quote(options.schedkit) +
                           " sweep " + Quote(fs::absolute(options.config_path).string()) +
                           " --out " + Quote(out) + " --shard $SLURM_ARRAY_TASK_ID/" +
                           std::to_string(tasks) + " --threads " +
                           std::to_string(options.cpus_per_task);
  const std::string sbatch = "sbatch --parsable --job-name=" + Quote("schedkit-" + config.name) +
                             " --array=0-" + std::to_string(tasks - 1) +
                             " --cpus-per-task=" + std::to_string(options.cpus_per_task) +
                             " --output=" + Quote(out + "/slurm/task-%a.out") + " " +
                             options.sbatch_args + " --wrap " + Quote(task);
  auto submitted = Capture(sbatch);
  if (!submitted.ok()) return submitted.status();
  if (submitted->first != 0) {
    return Status::IoError("sbatch failed: " + Trim(submitted->second));
  }
  SlurmSweepReport report;
  report.job_id = Trim(submitted->second);
  const size_t semicolon = report.job_id.find(';');  // "id;cluster" on federated setups.
  if (semicolon != std::string::npos) report.job_id.resize(semicolon);
  if (options.log) {
    options.log("submitted job array " + report.job_id + " (" + std::to_string(tasks) +
                " tasks) for " + std::to_string(grid) + " runs");
  }
  while (true) {
    auto queued = Capture("squeue -h -o %i -j " + report.job_id);
    if (!queued.ok()) return queued.status();
    // squeue fails once Slurm has forgotten the job: that is done too.
    if (queued->first != 0 || Trim(queued->second).empty()) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(options.poll_s));
  }
  SCHEDKIT_RETURN_IF_ERROR(WriteSweepResults(config, out));
  report.total = grid;
  for (const SweepRun& r : ExpandGrid(config)) {
    report.finished += fs::exists(fs::path(out) / "runs" / r.id / "summary.json");
  }
  return report;
}

}  // namespace schedkit
