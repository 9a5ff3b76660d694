// schedkit.simulate and Python scheduling keys (docs/write-a-policy.md, "In Python").
//
// simulate() runs what `schedkit simulate` runs (RunSimulation, the CLI's default restart
// overheads) and hands back its outputs: the summary.json statistics, and jobs.csv's columns
// as NumPy arrays. A Python policy supplies only a priority key; it is registered, for this
// run only, as an ordering policy in a copy of the built-in registries, so the built-in
// admission, placement and preemption modules run it through ModularPolicy exactly as they
// run the built-in keys.
//
// The GIL: the simulation runs with the GIL released; each call into Python (key,
// next_key_change) takes it for that call. Python objects the run uses are created, and
// released, while the GIL is held, before and after the run; the modules hold handles only.
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
#include "schedkit/metrics.h"
#include "schedkit/ordering_policy.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace py = pybind11;

namespace schedkit {
namespace {

[[noreturn]] void RaiseStatus(const Status& status) { throw py::value_error(status.message()); }

// The job a key is asked about, as Python sees it: valid only during that key call (one
// object serves every call, pointed at each job in turn; outside a call it raises).
class PyJob {
 public:
  const JobStatus& get() const {
    if (job_ == nullptr) {
      throw py::value_error("a schedkit.Job is valid only during the key() call it was given to");
    }
    return *job_;
  }
  void Set(const JobStatus* job) { job_ = job; }

 private:
  const JobStatus* job_ = nullptr;
};

double Nan(Time t) { return t == kNever ? NAN : t; }

// What simulate() keeps alive for the run: the Python policy and its methods.
struct PythonKey {
  std::string name;
  py::object policy;
  py::object key;              // Bound method policy.key.
  py::object next_key_change;  // Bound method, or None.
  py::object job;              // The one PyJob object.
  PyJob* job_ptr = nullptr;
};

// A SchedulingModule whose key is a Python method. Holds no Python reference: PythonKey
// (owned by simulate(), which outlives the run) does.
class PythonScheduling final : public SchedulingModule {
 public:
  explicit PythonScheduling(const PythonKey* py) : py_(py) {}
  std::string_view Name() const override { return py_->name; }

  PriorityKey Key(const JobStatus& job, Time now) const override {
    py::gil_scoped_acquire gil;
    const py::object result = Call(py_->key, job, now);
    const std::string where = py_->name + ".key(job " + std::to_string(job.spec->id) + ")";
    PriorityKey key = {0, 0, 0};
    try {
      if (!PySequence_Check(result.ptr())) {
        key[0] = result.cast<double>();
      } else {
        const py::sequence t = result.cast<py::sequence>();
        if (t.size() < 1 || t.size() > 3) {
          throw py::value_error(where + ": returned " + std::to_string(t.size()) +
                                " values; a key is 1 to 3 numbers");
        }
        for (size_t i = 0; i < t.size(); ++i) key[i] = t[i].cast<double>();
      }
    } catch (const py::cast_error&) {
      throw py::value_error(where + ": returned " + std::string(py::repr(result)) +
                            "; a key is a number or a tuple of 1 to 3 numbers");
    }
    for (double k : key) {
      if (std::isnan(k)) throw py::value_error(where + ": returned NaN; keys must be ordered");
    }
    return key;
  }

  Time NextKeyChange(const JobStatus& job, Time now) const override {
    if (py_->next_key_change.is_none()) return kNever;
    py::gil_scoped_acquire gil;
    const py::object result = Call(py_->next_key_change, job, now);
    if (result.is_none()) return kNever;
    const double t = result.cast<double>();
    if (!(t > now)) {
      throw py::value_error(py_->name + ".next_key_change(job " + std::to_string(job.spec->id) +
                            "): returned " + std::to_string(t) + ", not a time after now (" +
                            std::to_string(now) + "); return None for never");
    }
    return t;
  }

 private:
  // Calls `fn(job, now)` with the shared PyJob pointed at `job` for the call's duration.
  py::object Call(const py::object& fn, const JobStatus& job, Time now) const {
    struct Scope {
      PyJob* j;
      ~Scope() { j->Set(nullptr); }
    } scope{py_->job_ptr};
    py_->job_ptr->Set(&job);
    return fn(py_->job, now);
  }

  const PythonKey* py_;
};

PreemptionMode ParsePreemption(const std::string& name, const std::string& value) {
  if (value == "never") return PreemptionMode::kNever;
  if (value == "priority") return PreemptionMode::kPriority;
  throw py::value_error(name + ".default_preemption: '" + value + "' is not one of never, priority");
}

// Reads the policy object's attributes (docs/write-a-policy.md) and registers it.
std::unique_ptr<PythonKey> RegisterPythonPolicy(const py::object& policy, Registries* regs) {
  if (!py::hasattr(policy, "key")) {
    throw py::type_error(
        "policy must be a built-in policy's name or an object with key(job, now); got " +
        std::string(py::repr(policy)));
  }
  auto py = std::make_unique<PythonKey>();
  py->name = py::hasattr(policy, "name")
                 ? py::str(policy.attr("name")).cast<std::string>()
                 : py::str(py::type::of(policy).attr("__name__")).cast<std::string>();
  py->policy = policy;
  py->key = policy.attr("key");
  py->next_key_change = py::getattr(policy, "next_key_change", py::none());
  py->job = py::cast(PyJob());
  py->job_ptr = py->job.cast<PyJob*>();

  OrderingPolicyInfo info;
  info.name = py->name;
  info.description = "Python scheduling key " + py->name;
  info.default_placement =
      py::str(py::getattr(policy, "default_placement", py::str("best-fit"))).cast<std::string>();
  info.default_preemption = ParsePreemption(
      py->name,
      py::str(py::getattr(policy, "default_preemption", py::str("never"))).cast<std::string>());
  const PythonKey* handle = py.get();
  info.make = [handle](const PolicyContext&) -> Result<std::unique_ptr<SchedulingModule>> {
    return std::unique_ptr<SchedulingModule>(std::make_unique<PythonScheduling>(handle));
  };
  const Status s = RegisterOrderingPolicy(std::move(info), regs);
  if (!s.ok()) {
    throw py::value_error("Python policy '" + py->name +
                          "': its name is a built-in policy's; give it another `name`");
  }
  return py;
}

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
  std::unique_ptr<PythonKey> py_key;
  PolicyRequest request;
  if (py::isinstance<py::str>(policy)) {
    request.policy = policy.cast<std::string>();
  } else {
    py_key = RegisterPythonPolicy(policy, &regs);
    request.policy = py_key->name;
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
  result.jobs = JobColumns(r.recorder->jobs());
  return result;
}

}  // namespace

void BindSimulate(py::module_& m) {
  py::class_<PyJob>(m, "Job",
                    "The job a key is asked about; valid only during that call (docs/"
                    "write-a-policy.md). Times in seconds; NaN where unknown.")
      .def_property_readonly("id", [](const PyJob& j) { return j.get().spec->id; })
      .def_property_readonly("gpus", [](const PyJob& j) { return j.get().spec->gpus; })
      .def_property_readonly("submit_s", [](const PyJob& j) { return j.get().spec->submit_s; })
      .def_property_readonly("solo_s", [](const PyJob& j) { return j.get().spec->SoloRuntime(); },
                             "runtime alone on its GPUs (the trace's; an oracle value)")
      .def_property_readonly("user", [](const PyJob& j) { return j.get().spec->user; })
      .def_property_readonly("vc", [](const PyJob& j) { return j.get().spec->vc; })
      .def_property_readonly("priority", [](const PyJob& j) { return j.get().spec->priority; })
      .def_property_readonly("running", [](const PyJob& j) { return j.get().running(); })
      .def_property_readonly("first_start_s",
                             [](const PyJob& j) { return Nan(j.get().first_start_s); })
      .def_property_readonly("executed_s", [](const PyJob& j) { return j.get().executed_s; })
      .def_property_readonly("attained_gpu_s",
                             [](const PyJob& j) { return j.get().attained_gpu_s; })
      .def_property_readonly("preemptions", [](const PyJob& j) { return j.get().preemptions; })
      .def_property_readonly("remaining_s", [](const PyJob& j) { return j.get().remaining_s; },
                             "solo seconds of work left (the simulator's truth: an oracle value)");

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
        "built-in (or plugin) policy's name or a Python object with key(job, now); options "
        "are --opt's key=value pairs; overhead_s and runtime_factor are --overhead-s and "
        "--runtime-factor (None: the CLI's defaults); out='DIR' also writes jobs.csv, timeseries.csv and "
        "summary.json there, as --out DIR does. Returns a SimulationResult.");
}

}  // namespace schedkit
