// schedkit.simulate and Python scheduling keys (docs/write-a-policy.md, "In Python").
//
// simulate() runs what `schedkit simulate` runs (RunSimulation, the CLI's default restart
// overheads) and hands back its outputs: the summary.json statistics, and jobs.csv's columns
// as NumPy arrays. A Python policy (a key or a whole Policy, policy_bridge.h) is registered,
// for this run only, in a copy of the process's registries.
//
// The GIL: the simulation runs with the GIL released; each call into Python takes it for
// that call. An exception raised by the policy crosses the engine and reaches the caller.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "metrics/summary_json.h"
#include "policy_bridge.h"
#include "schedkit/metrics.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace py = pybind11;

namespace schedkit {
namespace {

[[noreturn]] void RaiseStatus(const Status& status) { throw py::value_error(status.message()); }

double Nan(Time t) { return t == kNever ? NAN : t; }

// Option values as the CLI's --opt gives them: text; Python booleans as true / false.
std::map<std::string, std::string> OptionText(const py::dict& options) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : options) {
    const std::string key = py::str(k).cast<std::string>();
    if (py::isinstance<py::bool_>(v)) {
      out[key] = v.cast<bool>() ? "true" : "false";
    } else {
      out[key] = py::str(v).cast<std::string>();
    }
  }
  return out;
}

template <typename T, typename F>
py::array_t<T> Column(const std::vector<RecordedJob>& jobs, F f) {
  py::array_t<T> a(static_cast<py::ssize_t>(jobs.size()));
  T* p = a.mutable_data();
  for (size_t i = 0; i < jobs.size(); ++i) p[i] = f(jobs[i]);
  return a;
}

template <typename F>
py::array Strings(const std::vector<RecordedJob>& jobs, F f) {
  py::list l;
  for (const RecordedJob& r : jobs) l.append(py::str(f(r)));
  return py::module_::import("numpy").attr("array")(l, py::arg("dtype") = "object");
}

// jobs.csv's columns (docs/outputs.md) in its order; an empty CSV field is NaN here.
py::dict JobColumns(const std::vector<RecordedJob>& jobs) {
  using J = const RecordedJob&;
  auto finished = [](J r) { return r.outcome == RecordedJob::Outcome::kFinished; };
  py::dict d;
  d["job_id"] = Column<int64_t>(jobs, [](J r) { return static_cast<int64_t>(r.id); });
  d["gpus"] = Column<int64_t>(jobs, [](J r) { return r.gpus; });
  d["submit_s"] = Column<double>(jobs, [](J r) { return r.submit_s; });
  d["first_start_s"] = Column<double>(jobs, [](J r) { return Nan(r.first_start_s); });
  d["end_s"] = Column<double>(jobs, [](J r) { return Nan(r.end_s); });
  d["jct_s"] = Column<double>(jobs, [&](J r) { return finished(r) ? r.jct_s() : NAN; });
  d["queue_s"] =
      Column<double>(jobs, [](J r) { return r.first_start_s == kNever ? NAN : r.queue_s(); });
  d["executed_s"] = Column<double>(jobs, [](J r) { return r.executed_s; });
  d["preemptions"] = Column<int64_t>(jobs, [](J r) { return r.preemptions; });
  d["outcome"] = Strings(jobs, [](J r) { return OutcomeName(r.outcome); });
  d["placement"] = Strings(jobs, [](J r) { return r.placement; });
  d["vc"] = Strings(jobs, [](J r) { return r.vc; });
  return d;
}

py::object JsonToPython(const nlohmann::ordered_json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

struct SimulationResult {
  py::dict summary;  // summary.json without its "run" block.
  py::dict run;      // summary.json's "run" block.
  py::dict jobs;     // jobs.csv's columns.
};

SimulationResult Simulate(const std::string& trace_path, const std::string& cluster_path,
                          const py::object& policy, const std::string& placement,
                          const std::string& admission, const py::dict& options, uint64_t seed,
                          std::optional<double> overhead_s, std::optional<double> runtime_factor,
                          const std::string& out) {
  Result<Trace> trace = LoadTrace(trace_path);
  if (!trace.ok()) RaiseStatus(trace.status());
  Result<ClusterSpec> cluster = LoadClusterSpec(cluster_path);
  if (!cluster.ok()) RaiseStatus(cluster.status());
  SimulatorOptions engine;
  engine.runtime_factor = runtime_factor;
  if (overhead_s) {
    if (!(*overhead_s >= 0) || !std::isfinite(*overhead_s)) {
      throw py::value_error("overhead_s: " + std::to_string(*overhead_s) +
                            " is not a finite number >= 0");
    }
    engine.overheads = RestartOverheads(*overhead_s);
  } else {
    Result<RestartOverheads> overheads = DefaultRestartOverheads();
    if (!overheads.ok()) RaiseStatus(overheads.status());
    engine.overheads = std::move(overheads).value();
  }
  if (runtime_factor && !(*runtime_factor > 0 && std::isfinite(*runtime_factor))) {
    throw py::value_error("runtime_factor: " + std::to_string(*runtime_factor) +
                          " is not a finite number > 0");
  }

  Registries regs = BuiltinRegistries();
  PolicyRequest request;
  if (py::isinstance<py::str>(policy)) {
    request.policy = policy.cast<std::string>();
  } else {
    request.policy = RegisterPythonPolicy(
        policy,
        PyType_Check(policy.ptr()) ? PythonPolicyObject::kClass : PythonPolicyObject::kInstance,
        PythonErrors::kRaise, &regs);
  }
  request.placement = placement;
  request.admission = admission;
  request.options = OptionText(options);
  request.seed = seed;

  std::optional<Result<RunOutput>> run;
  {
    py::gil_scoped_release nogil;
    run.emplace(RunSimulation(*trace, *cluster, request, std::move(engine), regs));
  }
  if (!run->ok()) RaiseStatus(run->status());
  const RunOutput& r = run->value();
  const auto block = SummaryRunBlock(request, trace_path, cluster_path, runtime_factor, regs);
  if (!out.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw py::value_error(out + ": cannot create directory: " + ec.message());
    Status s = WriteJobsCsv(*r.recorder, out + "/jobs.csv");
    if (s.ok()) s = WriteTimeSeriesCsv(*r.recorder, out + "/timeseries.csv");
    if (s.ok()) s = WriteSummaryJson(r.summary, block, out + "/summary.json");
    if (!s.ok()) RaiseStatus(s);
  }
  SimulationResult result;
  result.summary = py::dict(JsonToPython(SummaryStatisticsJson(r.summary)));
  for (const auto& [k, v] : block) result.run[py::str(k)] = v;
  result.jobs = JobColumns(r.recorder->Jobs());
  return result;
}

}  // namespace

void BindSimulate(py::module_& m) {
  py::class_<SimulationResult>(m, "SimulationResult")
      .def_readonly("summary", &SimulationResult::summary,
                    "summary.json's statistics (docs/outputs.md), without its run block")
      .def_readonly("run", &SimulationResult::run, "summary.json's run block")
      .def_readonly("jobs", &SimulationResult::jobs,
                    "jobs.csv's columns as NumPy arrays, one row per trace job in trace order; "
                    "an empty CSV field is NaN")
      .def(
          "to_pandas",
          [](const SimulationResult& r) {
            return py::module_::import("pandas").attr("DataFrame")(r.jobs);
          },
          "jobs as a pandas DataFrame (needs pandas)");

  m.def("simulate", &Simulate, py::arg("trace"), py::arg("cluster"), py::arg("policy") = "fifo",
        py::arg("placement") = "", py::arg("admission") = "", py::arg("options") = py::dict(),
        py::arg("seed") = 0, py::arg("overhead_s") = py::none(),
        py::arg("runtime_factor") = py::none(), py::arg("out") = "",
        "One run, as `schedkit simulate --trace T --cluster C --policy P` does: policy is a "
        "built-in (or plugin) policy's name, or a Python object (or class) with key(job, now) "
        "or decide(view, events); options "
        "are --opt's key=value pairs; overhead_s and runtime_factor are --overhead-s and "
        "--runtime-factor (None: the CLI's defaults); out='DIR' also writes jobs.csv, timeseries.csv and "
        "summary.json there, as --out DIR does. Returns a SimulationResult.");
}

}  // namespace schedkit
