// Python policies: the objects a Python policy sees (Job, View, Events, Decisions,
// Placement, Resources), and the C++ Policy / SchedulingModule that call into it.
#include "policy_bridge.h"

#include <pybind11/eval.h>
#include <pybind11/stl.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "schedkit/ordering_policy.h"

namespace py = pybind11;

namespace schedkit {
namespace {

double Nan(Time t) { return t == kNever ? NAN : t; }

// A Python reference that C++ copies freely (registry entries are copied without the GIL)
// and that drops its reference under the GIL when the last copy goes.
using PyHandle = std::shared_ptr<PyObject>;
PyHandle Handle(const py::object& o) {
  return PyHandle(o.inc_ref().ptr(), [](PyObject* p) {
    py::gil_scoped_acquire gil;
    Py_DECREF(p);
  });
}
py::object Borrow(const PyHandle& h) { return py::reinterpret_borrow<py::object>(h.get()); }

// Marks the Python objects handed to one call valid while it lasts: a Job or View kept
// by the policy raises afterwards instead of reading freed engine state.
class CallScope {
 public:
  CallScope() : valid_(std::make_shared<bool>(true)) {}
  ~CallScope() { *valid_ = false; }
  const std::shared_ptr<const bool>& valid() const { return valid_const_; }

 private:
  std::shared_ptr<bool> valid_;
  std::shared_ptr<const bool> valid_const_ = valid_;
};

// schedkit.Job: one job's status at the call's `now`, valid only during that call.
class PyJob {
 public:
  PyJob(const JobStatus& status, std::shared_ptr<const bool> valid)
      : status_(status), valid_(std::move(valid)) {}
  const JobStatus& get() const {
    if (!*valid_) {
      throw py::value_error(
          "a schedkit.Job is valid only during the key() or decide() call it was given to");
    }
    return status_;
  }
  void Set(const JobStatus& status, std::shared_ptr<const bool> valid) {
    status_ = status;
    valid_ = std::move(valid);
  }

 private:
  JobStatus status_;
  std::shared_ptr<const bool> valid_;
};

const char* StateName(JobState s) {
  switch (s) {
    case JobState::kPending:
      return "pending";
    case JobState::kRunning:
      return "running";
    case JobState::kFinished:
      return "finished";
    case JobState::kRejected:
      return "rejected";
  }
  return "?";
}

// The placement module a Python policy was given (--placement or its default), and any
// other it names in View.place, built on first use with default options.
class PlacementModules {
 public:
  explicit PlacementModules(std::unique_ptr<PlacementModule> own) : own_(std::move(own)) {}
  const PlacementModule& Get(const std::string& name) {
    if (name.empty()) return *own_;
    auto it = named_.find(name);
    if (it != named_.end()) return *it->second;
    const PlacementRegistry& registry = BuiltinRegistries().placements;
    const PlacementRegistry::Entry* e = registry.Find(name);
    if (e == nullptr) {
      throw py::value_error("unknown placement '" + name + "' (known: " + registry.Names() + ")");
    }
    Result<OptionValues> options = OptionValues::Parse("placement " + name, e->options, {});
    if (!options.ok()) throw py::value_error(options.status().message());
    ModuleContext ctx{std::move(options).value()};
    Result<std::unique_ptr<PlacementModule>> made = e->factory(ctx);
    if (!made.ok()) throw py::value_error(made.status().message());
    return *named_.emplace(name, std::move(made).value()).first->second;
  }

 private:
  std::unique_ptr<PlacementModule> own_;
  std::map<std::string, std::unique_ptr<PlacementModule>> named_;
};

// schedkit.View: the ClusterView of one decide() call.
class PyView {
 public:
  PyView(const ClusterView* view, std::shared_ptr<const bool> valid, PlacementModules* placements,
         const std::unordered_set<JobId>* arrived)
      : view_(view), valid_(std::move(valid)), placements_(placements), arrived_(arrived) {}
  const ClusterView& get() const {
    if (!*valid_) {
      throw py::value_error("a schedkit.View is valid only during the decide() call it was given to");
    }
    return *view_;
  }
  PyJob Job(JobId id) const { return PyJob(get().Status(Arrived(id)), valid_); }
  Placement Place(JobId id, const ClusterState& free, const std::string& module) const {
    return placements_->Get(module).Place(get().Spec(Arrived(id)), free);
  }

 private:
  // Status and Spec require a job that has arrived: anything else is the policy's bug.
  JobId Arrived(JobId id) const {
    get();
    if (arrived_->count(id) == 0) {
      throw py::value_error("job " + std::to_string(id) + " has not arrived");
    }
    return id;
  }

  const ClusterView* view_;
  std::shared_ptr<const bool> valid_;
  PlacementModules* placements_;
  const std::unordered_set<JobId>* arrived_;
};

struct PyEvents {
  std::vector<JobId> arrived, finished, interrupted;
  bool woken = false;
};

// `node`, if the cluster has it; else IndexError.
int Node(const ClusterState& s, int node) {
  if (node < 0 || node >= s.num_nodes()) {
    throw py::index_error("node " + std::to_string(node) + ": the cluster has nodes 0.." +
                          std::to_string(s.num_nodes() - 1));
  }
  return node;
}

py::list NodeList(const ClusterSpec& spec) {
  py::list nodes;
  for (const NodeSpec& n : spec.nodes) {
    nodes.append(py::dict(py::arg("switch") = n.switch_id, py::arg("gpus") = n.gpus,
                          py::arg("cpus") = n.cpus, py::arg("mem_gb") = n.mem_gb,
                          py::arg("gpu_type") = n.gpu_type));
  }
  return nodes;
}

// ---- The key form -------------------------------------------------------------------

// A SchedulingModule whose key is a Python method of one policy object.
class PythonScheduling final : public SchedulingModule {
 public:
  // REQUIRES: the GIL is held.
  PythonScheduling(std::string name, py::object policy) : name_(std::move(name)) {
    py_ = std::make_unique<Py>();
    py_->key = policy.attr("key");
    py_->next_key_change = py::getattr(policy, "next_key_change", py::none());
    py_->job = py::cast(PyJob(JobStatus(), std::make_shared<const bool>(false)));
    py_->job_ptr = py_->job.cast<PyJob*>();
    py_->policy = std::move(policy);
  }
  ~PythonScheduling() override {
    py::gil_scoped_acquire gil;
    py_.reset();
  }
  std::string_view Name() const override { return name_; }

  PriorityKey Key(const JobStatus& job, Time now) const override {
    py::gil_scoped_acquire gil;
    const py::object result = Call(py_->key, job, now);
    const std::string where = name_ + ".key(job " + std::to_string(job.spec->id) + ")";
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
    py::gil_scoped_acquire gil;
    if (py_->next_key_change.is_none()) return kNever;
    const py::object result = Call(py_->next_key_change, job, now);
    if (result.is_none()) return kNever;
    const double t = result.cast<double>();
    if (!(t > now)) {
      throw py::value_error(name_ + ".next_key_change(job " + std::to_string(job.spec->id) +
                            "): returned " + std::to_string(t) + ", not a time after now (" +
                            std::to_string(now) + "); return None for never");
    }
    return t;
  }

 private:
  struct Py {
    py::object policy;
    py::object key;              // Bound method policy.key.
    py::object next_key_change;  // Bound method, or None.
    py::object job;              // One schedkit.Job, pointed at each job in turn.
    PyJob* job_ptr = nullptr;
  };

  // Calls `fn(job, now)` with the shared Job valid for the call's duration.
  py::object Call(const py::object& fn, const JobStatus& job, Time now) const {
    CallScope scope;
    py_->job_ptr->Set(job, scope.valid());
    return fn(py_->job, now);
  }

  std::string name_;
  std::unique_ptr<Py> py_;
};

// ---- The whole-policy form ------------------------------------------------------------

class PythonPolicy final : public Policy {
 public:
  // REQUIRES: the GIL is held.
  PythonPolicy(std::string name, py::object policy, std::unique_ptr<PlacementModule> placement)
      : name_(std::move(name)), placements_(std::move(placement)) {
    decide_ = std::make_unique<py::object>(policy.attr("decide"));
  }
  ~PythonPolicy() override {
    py::gil_scoped_acquire gil;
    decide_.reset();
  }
  std::string_view Name() const override { return name_; }

  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    arrived_.insert(events.arrived.begin(), events.arrived.end());
    // The runtime may hand over running jobs it re-adopted after a restart, unannounced.
    arrived_.insert(view.RunningJobs().begin(), view.RunningJobs().end());
    py::gil_scoped_acquire gil;
    CallScope scope;
    py::object result = (*decide_)(PyView(&view, scope.valid(), &placements_, &arrived_),
                                   PyEvents{events.arrived, events.finished, events.interrupted,
                                            events.woken});
    if (result.is_none()) return;
    if (!py::isinstance<Decisions>(result)) {
      throw py::type_error(name_ + ".decide(view, events): returned " +
                           std::string(py::repr(result)) + "; return a schedkit.Decisions or None");
    }
    *out = result.cast<const Decisions&>();
  }

 private:
  std::string name_;
  std::unique_ptr<py::object> decide_;  // Bound method policy.decide.
  PlacementModules placements_;
  std::unordered_set<JobId> arrived_;  // Every job the policy was told of.
};

// Turns a Python exception (or an error the bridge raised) during a decision into
// Decisions::Fail: one line, and the run ends with it instead of the exception crossing
// the engine. The policy's state after such an exception is not to be trusted: the
// simulator ends the run; `serve` logs the error and asks again.
class FailOnException final : public Policy {
 public:
  explicit FailOnException(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::string_view Name() const override { return inner_->Name(); }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    try {
      inner_->Decide(view, events, out);
    } catch (...) {
      out->Clear();
      out->Fail(PythonErrorLine());
    }
  }

 private:
  std::unique_ptr<Policy> inner_;
};

std::string NameOf(const py::object& obj, PythonPolicyObject kind) {
  if (py::hasattr(obj, "name") && kind == PythonPolicyObject::kInstance) {
    return py::str(obj.attr("name")).cast<std::string>();
  }
  // A class: its `name` class attribute if it is a string (the base classes' is a property).
  if (kind == PythonPolicyObject::kClass) {
    py::object n = py::getattr(obj, "name", py::none());
    if (py::isinstance<py::str>(n)) return n.cast<std::string>();
    return py::str(obj.attr("__name__")).cast<std::string>();
  }
  return py::str(py::type::of(obj).attr("__name__")).cast<std::string>();
}

std::string StrAttr(const py::object& obj, const char* attr, const char* fallback) {
  return py::str(py::getattr(obj, attr, py::str(fallback))).cast<std::string>();
}

// The run's object: `obj` itself, or a fresh instance of the class `obj`.
Result<py::object> RunObject(const PyHandle& obj, PythonPolicyObject kind, const std::string& name) {
  py::gil_scoped_acquire gil;
  if (kind == PythonPolicyObject::kInstance) return Borrow(obj);
  try {
    return Borrow(obj)();
  } catch (py::error_already_set&) {
    return Status::InvalidArgument(name + ": creating the policy object: " + PythonErrorLine());
  }
}

}  // namespace

std::string PythonErrorLine() {
  py::gil_scoped_acquire gil;
  auto format = [](py::error_already_set& e) {
    const std::string type = py::str(e.type().attr("__name__")).cast<std::string>();
    const std::string value = py::str(e.value()).cast<std::string>();
    std::string line = value.empty() ? type : type + ": " + value;
    for (char& c : line) {
      if (c == '\n') c = ' ';
    }
    return line;
  };
  try {
    throw;
  } catch (py::error_already_set& e) {
    return format(e);
  } catch (const py::builtin_exception& e) {  // Raised by the bridge: ValueError, TypeError.
    e.set_error();
    py::error_already_set set;
    return format(set);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

std::string RegisterPythonPolicy(const py::object& obj, PythonPolicyObject kind,
                                 PythonErrors errors, Registries* regs) {
  const bool has_key = py::hasattr(obj, "key");
  const bool has_decide = py::hasattr(obj, "decide");
  if (!has_key && !has_decide) {
    throw py::type_error(
        "policy must be a policy's name or an object with key(job, now) or decide(view, "
        "events); got " + std::string(py::repr(obj)));
  }
  const std::string name = NameOf(obj, kind);
  const std::string placement = StrAttr(obj, "default_placement", "best-fit");
  if (BuiltinRegistries().placements.Find(placement) == nullptr) {
    throw py::value_error(name + ".default_placement: unknown placement '" + placement +
                          "' (known: " + BuiltinRegistries().placements.Names() + ")");
  }
  const PyHandle handle = Handle(obj);
  Registries scratch;  // The entry is built here, then (maybe wrapped) added to regs.
  if (has_decide) {
    PolicyRegistry::Entry e;
    e.name = name;
    e.description = "Python policy " + name + " (decide)";
    e.default_placement = placement;
    e.takes_admission = false;
    e.default_admission = "";
    e.factory = [handle, kind, name](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
      Result<py::object> run_object = RunObject(handle, kind, name);
      if (!run_object.ok()) return run_object.status();
      py::gil_scoped_acquire gil;  // Moved from, run_object holds no reference after this.
      return std::unique_ptr<Policy>(std::make_unique<PythonPolicy>(
          name, std::move(run_object).value(), std::move(ctx.placement)));
    };
    (void)scratch.policies.Register(std::move(e));
  } else {
    OrderingPolicyInfo info;
    info.name = name;
    info.description = "Python scheduling key " + name;
    info.default_placement = placement;
    const std::string preemption = StrAttr(obj, "default_preemption", "never");
    if (preemption != "never" && preemption != "priority") {
      throw py::value_error(name + ".default_preemption: '" + preemption +
                            "' is not one of never, priority");
    }
    info.default_preemption =
        preemption == "never" ? PreemptionMode::kNever : PreemptionMode::kPriority;
    info.make = [handle, kind, name](const PolicyContext&)
        -> Result<std::unique_ptr<SchedulingModule>> {
      Result<py::object> run_object = RunObject(handle, kind, name);
      if (!run_object.ok()) return run_object.status();
      py::gil_scoped_acquire gil;  // Moved from, run_object holds no reference after this.
      return std::unique_ptr<SchedulingModule>(
          std::make_unique<PythonScheduling>(name, std::move(run_object).value()));
    };
    (void)RegisterOrderingPolicy(std::move(info), &scratch);
  }
  PolicyRegistry::Entry entry = scratch.policies.entries().front();
  if (errors == PythonErrors::kFail) {
    entry.factory = [inner = entry.factory](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
      Result<std::unique_ptr<Policy>> made = inner(ctx);
      if (!made.ok()) return made.status();
      return std::unique_ptr<Policy>(std::make_unique<FailOnException>(std::move(made).value()));
    };
  }
  if (!regs->policies.Register(std::move(entry)).ok()) {
    throw py::value_error("Python policy '" + name +
                          "': its name is a built-in policy's or another loaded policy's; give it "
                          "another `name`");
  }
  return name;
}

// The base classes: document the attributes the registration reads; any object with
// key(job, now) or decide(view, events) serves as well.
constexpr const char* kBaseClasses = R"py(
class SchedulingPolicy:
    """A priority key run by schedkit's ModularPolicy (docs/write-a-policy.md).

    Override key(job, now) -> a number or a tuple of up to 3 numbers; lower runs first,
    ties go by (submit time, job id). A pending job's key must not change while it waits.
    Optional: next_key_change(job, now) -> the time a running job's key next changes
    (or None). Attributes: name (default: the class name), default_placement
    ("best-fit"), default_preemption ("never" or "priority"); the run's options
    "preemption" and "backfill" override them as for built-in policies.
    """

    default_placement = "best-fit"
    default_preemption = "never"

    @property
    def name(self):
        return type(self).__name__

    def key(self, job, now):
        raise NotImplementedError(type(self).__name__ + ".key(job, now) is not defined")


class Policy:
    """A whole policy (docs/write-a-policy.md): decide(view, events) -> Decisions or None.

    Called whenever something happens (jobs arrive or finish, a wake-up comes). view and
    the Jobs it gives are valid only during the call. Attributes: name (default: the class
    name), default_placement ("best-fit": the module View.place uses unless the run names
    another). One object serves one run; the CLI makes one per run by calling the class.
    """

    default_placement = "best-fit"

    @property
    def name(self):
        return type(self).__name__

    def decide(self, view, events):
        raise NotImplementedError(type(self).__name__ + ".decide(view, events) is not defined")
)py";

void BindPolicies(py::module_& m) {
  py::class_<PyJob>(m, "Job",
                    "A job as a policy sees it; valid only during the call it was given to "
                    "(docs/write-a-policy.md). Times in seconds; NaN where unknown.")
      .def_property_readonly("id", [](const PyJob& j) { return j.get().spec->id; })
      .def_property_readonly("gpus", [](const PyJob& j) { return j.get().spec->gpus; })
      .def_property_readonly("submit_s", [](const PyJob& j) { return j.get().spec->submit_s; })
      .def_property_readonly("solo_s", [](const PyJob& j) { return j.get().spec->SoloRuntime(); },
                             "runtime alone on its GPUs (the trace's; an oracle value)")
      .def_property_readonly("user", [](const PyJob& j) { return j.get().spec->user; })
      .def_property_readonly("vc", [](const PyJob& j) { return j.get().spec->vc; })
      .def_property_readonly("priority", [](const PyJob& j) { return j.get().spec->priority; })
      .def_property_readonly("state", [](const PyJob& j) { return StateName(j.get().state); },
                             "pending, running, finished or rejected")
      .def_property_readonly("running", [](const PyJob& j) { return j.get().running(); })
      .def_property_readonly("placement",
                             [](const PyJob& j) {
                               const JobStatus& s = j.get();
                               return s.placement != nullptr ? *s.placement : Placement();
                             },
                             "where it runs (an empty Placement unless running)")
      .def_property_readonly("first_start_s",
                             [](const PyJob& j) { return Nan(j.get().first_start_s); })
      .def_property_readonly("executed_s", [](const PyJob& j) { return j.get().executed_s; })
      .def_property_readonly("attained_gpu_s",
                             [](const PyJob& j) { return j.get().attained_gpu_s; })
      .def_property_readonly("preemptions", [](const PyJob& j) { return j.get().preemptions; })
      .def_property_readonly("remaining_s", [](const PyJob& j) { return j.get().remaining_s; },
                             "solo seconds of work left (the simulator's truth: an oracle value)");

  py::class_<Placement>(m, "Placement",
                        "Where a job runs: GPUs of nodes. False when empty (nothing fits).")
      .def(py::init<>())
      .def_static(
          "parse",
          [](const std::string& text) {
            Result<Placement> p = ParsePlacement(text);
            if (!p.ok()) throw py::value_error(p.status().message());
            return std::move(p).value();
          },
          py::arg("text"), "reads the placement text of jobs.csv, e.g. 'n0:0-3;n1:0,2'")
      .def_property_readonly("gpus", &Placement::gpus)
      .def("__bool__", [](const Placement& p) { return !p.empty(); })
      .def("__eq__", [](const Placement& a, const Placement& b) { return a == b; })
      .def("__str__", [](const Placement& p) { return p.ToString(); })
      .def("__repr__", [](const Placement& p) { return "Placement('" + p.ToString() + "')"; });

  py::class_<ClusterState>(m, "Resources",
                           "Free resources per node; a copy the policy plans on (View.free).")
      .def_property_readonly("num_nodes", &ClusterState::num_nodes)
      .def_property_readonly("total_free_gpus", &ClusterState::total_free_gpus)
      .def_property_readonly("total_gpus", &ClusterState::total_gpus)
      .def("free_gpus", [](const ClusterState& s, int n) { return s.free_gpus(Node(s, n)); },
           py::arg("node"))
      .def("free_cpus", [](const ClusterState& s, int n) { return s.free_cpus(Node(s, n)); },
           py::arg("node"))
      .def("free_mem_gb", [](const ClusterState& s, int n) { return s.free_mem_gb(Node(s, n)); },
           py::arg("node"))
      .def("can_allocate", &ClusterState::CanAllocate, py::arg("placement"))
      .def(
          "allocate",
          [](ClusterState& s, const Placement& p) {
            if (!s.CanAllocate(p)) {
              throw py::value_error("Resources.allocate: placement '" + p.ToString() +
                                    "' is not free");
            }
            s.Allocate(p);
          },
          py::arg("placement"), "books it (ValueError if any of it is not free)")
      .def("copy", [](const ClusterState& s) { return ClusterState(s); });

  py::class_<PyEvents>(m, "Events", "What happened since the previous decide() call.")
      .def_readonly("arrived", &PyEvents::arrived, "new jobs, in (submit, id) order")
      .def_readonly("finished", &PyEvents::finished)
      .def_readonly("interrupted", &PyEvents::interrupted,
                    "running jobs the engine stopped (node failure): pending again")
      .def_readonly("woken", &PyEvents::woken, "a wake-up the policy asked for has come");

  py::class_<PyView>(m, "View",
                     "The cluster and its jobs at `now`, read-only; valid only during the "
                     "decide() call it was given to.")
      .def_property_readonly("now", [](const PyView& v) { return v.get().Now(); })
      .def_property_readonly("nodes", [](const PyView& v) { return NodeList(v.get().Cluster()); },
                             "the cluster's nodes: dicts of switch, gpus, cpus, mem_gb, gpu_type")
      .def_property_readonly("total_gpus",
                             [](const PyView& v) { return v.get().Cluster().TotalGpus(); })
      .def(
          "free", [](const PyView& v) { return v.get().Resources(); },
          "a copy of the free resources, before this call's decisions")
      .def(
          "capacity", [](const PyView& v) { return v.get().Capacity(); },
          "what a schedule built from scratch may use (schedkit/view.h)")
      .def(
          "running", [](const PyView& v) { return v.get().RunningJobs(); },
          "running job ids, in a deterministic order")
      .def(
          "pending", [](const PyView& v) { return v.get().PendingJobs(); },
          "pending job ids by (submit time, id)")
      .def("job", &PyView::Job, py::arg("id"), "the job's status (a schedkit.Job)")
      .def("place", &PyView::Place, py::arg("job"), py::arg("free"), py::arg("placement") = "",
           "where the job would go on `free` (not booked): by the run's placement module, "
           "or the one named; an empty Placement if it does not fit");

  py::class_<Decisions>(m, "Decisions",
                        "What decide() returns: applied as reject, preempt, then start.")
      .def(py::init<>())
      .def(
          "start",
          [](Decisions& d, JobId job, const Placement& p, double rate, int64_t group, bool guest) {
            d.start.push_back(StartDecision{job, p, rate, group, guest});
          },
          py::arg("job"), py::arg("placement"), py::arg("rate") = 1.0, py::arg("group") = 0,
          py::arg("guest") = false, "starts (or moves) a job on the placement")
      .def(
          "preempt", [](Decisions& d, JobId job) { d.preempt.push_back(job); }, py::arg("job"))
      .def(
          "reject", [](Decisions& d, JobId job, std::string reason) {
            d.Reject(job, std::move(reason));
          },
          py::arg("job"), py::arg("reason") = "")
      .def_property(
          "wake_at", [](const Decisions& d) -> py::object {
            if (d.wake_at == kNever) return py::none();
            return py::float_(d.wake_at);
          },
          [](Decisions& d, const py::object& t) {
            d.wake_at = t.is_none() ? kNever : t.cast<double>();
          },
          "call decide() again no later than this time (None: only when something happens)")
      .def_property_readonly("starts", [](const Decisions& d) {
        py::list l;
        for (const StartDecision& s : d.start) l.append(py::make_tuple(s.job, s.placement));
        return l;
      })
      .def_readonly("preempted", &Decisions::preempt)
      .def_readonly("rejected", &Decisions::reject);

  py::exec(kBaseClasses, m.attr("__dict__"));
  m.attr("SchedulingPolicy").attr("__module__") = "schedkit";
  m.attr("Policy").attr("__module__") = "schedkit";
}

}  // namespace schedkit
