// The `schedkit` Python module (pybind11): the learning environments as Gym-style objects with
// NumPy observations, their space descriptions, and the DAG simulator's built-in schedulers as
// references; and (simulate.cc, policy_bridge.cc) schedkit.simulate with built-in or Python
// policies. A bad
// Status becomes a Python ValueError carrying its one-line message.
#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "schedkit/cluster_env.h"
#include "schedkit/dag.h"
#include "schedkit/env.h"
#include "schedkit/env_spaces.h"
#include "policy_bridge.h"

namespace py = pybind11;

namespace schedkit {
namespace {

[[noreturn]] void Raise(const Status& status) { throw py::value_error(status.message()); }

template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

py::dict ToPython(const Observation& obs) {
  py::dict d;
  for (const auto& [field, tensor] : obs) {
    // Clang before 16 cannot capture a structured binding in a lambda: capture a reference.
    const std::string& name = field;
    const std::vector<py::ssize_t> shape(tensor.shape.begin(), tensor.shape.end());
    std::visit(
        [&](const auto& values) {
          using T = typename std::decay_t<decltype(values)>::value_type;
          py::array_t<T> array(shape);
          std::copy(values.begin(), values.end(), array.mutable_data());
          d[py::str(name)] = std::move(array);
        },
        tensor.values);
  }
  return d;
}

py::dict FieldsToPython(const std::vector<FieldDoc>& fields) {
  py::dict d;
  for (const FieldDoc& f : fields) {
    d[py::str(f.name)] = py::dict(py::arg("dtype") = f.dtype, py::arg("shape") = f.shape,
                                  py::arg("meaning") = f.meaning);
  }
  return d;
}

// An int, or any sequence / array of ints; anything else is a ValueError.
Action ToAction(const py::object& action) {
  py::object flat = py::module_::import("numpy").attr("asarray")(action);
  if (!py::str(flat.attr("dtype").attr("kind")).equal(py::str("i")) &&
      !py::str(flat.attr("dtype").attr("kind")).equal(py::str("u"))) {
    throw py::value_error("action must be integers, got " + std::string(py::repr(action)));
  }
  return flat.attr("reshape")(-1).attr("tolist")().cast<Action>();
}

// One environment, Gym-style: reset(seed) -> obs; step(action) -> (obs, reward, terminated,
// truncated, info).
class PyEnv {
 public:
  explicit PyEnv(std::unique_ptr<Environment> env) : env_(std::move(env)) {
    doc_ = Unwrap(DescribeEnvironment(env_->Name()));
  }

  std::string name() const { return env_->Name(); }
  py::dict Reset(uint64_t seed) { return ToPython(env_->Reset(seed)); }

  py::tuple Step(const py::object& action) {
    StepResult r = Unwrap(env_->Step(ToAction(action)));
    py::dict info;
    for (const auto& [k, v] : r.info) info[py::str(k)] = v;
    return py::make_tuple(ToPython(r.observation), r.reward, r.terminated, r.truncated, info);
  }

  py::dict ObservationSpace() const { return FieldsToPython(doc_.observation); }
  py::dict ActionSpace() const { return FieldsToPython(doc_.action); }
  py::dict Spaces() const {
    return py::dict(py::arg("observation") = ObservationSpace(), py::arg("action") = ActionSpace(),
                    py::arg("symbols") = doc_.symbols, py::arg("reward") = doc_.reward);
  }

 private:
  std::unique_ptr<Environment> env_;
  SpaceDoc doc_;
};

DagConfig MakeDagConfig(int num_executors, int job_arrival_cap, double job_arrival_rate,
                        double moving_delay_ms, double warmup_delay_ms) {
  DagConfig c;
  c.num_executors = num_executors;
  c.job_arrival_cap = job_arrival_cap;
  c.job_arrival_rate = job_arrival_rate;
  c.moving_delay_ms = moving_delay_ms;
  c.warmup_delay_ms = warmup_delay_ms;
  return c;
}

// Loaded once per path for the life of the interpreter: tpch.json takes about a second to parse,
// and environments and reference runs only read it.
std::shared_ptr<const DagWorkload> LoadWorkload(const std::string& path) {
  static std::map<std::string, std::shared_ptr<const DagWorkload>> cache;
  const std::string file = path.empty() ? DefaultDagWorkloadPath() : path;
  auto it = cache.find(file);
  if (it == cache.end()) {
    it = cache.emplace(file, std::make_shared<const DagWorkload>(Unwrap(LoadDagWorkload(file))))
             .first;
  }
  return it->second;
}

PyEnv MakeDagEnv(int num_executors, int job_arrival_cap, double job_arrival_rate,
                 double moving_delay_ms, double warmup_delay_ms, const std::string& workload) {
  const DagConfig c = MakeDagConfig(num_executors, job_arrival_cap, job_arrival_rate,
                                    moving_delay_ms, warmup_delay_ms);
  return PyEnv(Unwrap(MakeDagEnvironment(c, LoadWorkload(workload))));
}

PyEnv MakeClusterEnv(const std::string& trace, const std::string& cluster,
                     const std::string& placement, int64_t num_jobs, double jobs_per_hour,
                     int max_queued, int max_running, bool expose_remaining, bool preemption) {
  ClusterEnvConfig c;
  c.trace_path = trace;
  c.cluster_path = cluster;
  c.placement = placement;
  c.generator.num_jobs = num_jobs;
  c.generator.jobs_per_hour = jobs_per_hour;
  c.max_queued = max_queued;
  c.max_running = max_running;
  c.expose_remaining = expose_remaining;
  c.preemption = preemption;
  return PyEnv(Unwrap(MakeClusterEnvironment(c)));
}

py::dict DagSimulate(const std::string& scheduler, uint64_t seed, int num_executors,
                     int job_arrival_cap, double job_arrival_rate, double moving_delay_ms,
                     double warmup_delay_ms, const std::string& workload) {
  const DagConfig c = MakeDagConfig(num_executors, job_arrival_cap, job_arrival_rate,
                                    moving_delay_ms, warmup_delay_ms);
  std::unique_ptr<DagScheduler> s = Unwrap(MakeDagScheduler(scheduler, c));
  const DagSummary r = Unwrap(RunDagSimulation(c, *LoadWorkload(workload), *s, seed)).summary;
  return py::dict(py::arg("jobs") = r.jobs, py::arg("avg_jct_s") = r.avg_jct_s,
                  py::arg("makespan_s") = r.makespan_s, py::arg("total_reward") = r.total_reward,
                  py::arg("decisions") = r.decisions);
}

}  // namespace

// schedkit.simulate, schedkit.SimulationResult (simulate.cc).
void BindSimulate(py::module_& m);

// The whole module: what `import schedkit` gives, from the extension module (below) or from
// the interpreter the CLI embeds for Python policies (python/embed/embed.cc).
void BindModule(py::module_& m);

}  // namespace schedkit

#ifndef SCHEDKIT_EMBEDDED
PYBIND11_MODULE(schedkit, m) { schedkit::BindModule(m); }
#endif

void schedkit::BindModule(py::module_& m) {
  using schedkit::PyEnv;
  m.doc() =
      "schedkit learning environments (docs/learning.md): DagEnv (Spark DAG jobs) and "
      "ClusterEnv (GPU cluster), Gym-style with NumPy observations; simulate() runs a "
      "built-in or Python policy (docs/write-a-policy.md).";
  schedkit::BindPolicies(m);
  schedkit::BindSimulate(m);
  py::class_<PyEnv>(m, "Env")
      .def_property_readonly("name", &PyEnv::name)
      .def("reset", &PyEnv::Reset, py::arg("seed") = 0,
           "Starts an episode; the same seed gives the same episode. Returns the observation "
           "(dict of NumPy arrays).")
      .def("step", &PyEnv::Step, py::arg("action"),
           "Applies the action; returns (obs, reward, terminated, truncated, info). An illegal "
           "action raises ValueError and changes nothing.")
      .def_property_readonly("observation_space", &PyEnv::ObservationSpace,
                             "{field: {dtype, shape, meaning}}")
      .def_property_readonly("action_space", &PyEnv::ActionSpace,
                             "{integer: {dtype, shape, meaning}}, in the action's order")
      .def_property_readonly("spaces", &PyEnv::Spaces,
                             "observation, action, shape symbols and reward, described");
  const schedkit::DagConfig d;
  m.def("DagEnv", &schedkit::MakeDagEnv, py::arg("num_executors") = d.num_executors,
        py::arg("job_arrival_cap") = d.job_arrival_cap,
        py::arg("job_arrival_rate") = d.job_arrival_rate,
        py::arg("moving_delay_ms") = d.moving_delay_ms,
        py::arg("warmup_delay_ms") = d.warmup_delay_ms, py::arg("workload") = "",
        "The Spark DAG environment; defaults: the published spark-sched-sim config, TPC-H.");
  const schedkit::ClusterEnvConfig c;
  m.def("ClusterEnv", &schedkit::MakeClusterEnv, py::arg("trace") = "", py::arg("cluster") = "",
        py::arg("placement") = c.placement, py::arg("num_jobs") = c.generator.num_jobs,
        py::arg("jobs_per_hour") = c.generator.jobs_per_hour, py::arg("max_queued") = c.max_queued,
        py::arg("max_running") = c.max_running, py::arg("expose_remaining") = c.expose_remaining,
        py::arg("preemption") = c.preemption,
        "The GPU-cluster environment: a trace file, or (trace='') the seeded generator; "
        "cluster='' is the shipped 64-GPU cluster.");
  m.def("dag_simulate", &schedkit::DagSimulate, py::arg("scheduler") = "fair", py::arg("seed") = 0,
        py::arg("num_executors") = d.num_executors, py::arg("job_arrival_cap") = d.job_arrival_cap,
        py::arg("job_arrival_rate") = d.job_arrival_rate,
        py::arg("moving_delay_ms") = d.moving_delay_ms,
        py::arg("warmup_delay_ms") = d.warmup_delay_ms, py::arg("workload") = "",
        "One DAG episode with a built-in scheduler (fair, fifo, fifo-half): summary dict.");
}
