// Policies written in Python (docs/write-a-policy.md, "In Python"), shared by the `schedkit`
// extension module (schedkit.simulate) and the embedded interpreter the CLI loads for
// `--python MODULE:CLASS` (python/embed/embed.cc).
//
// Two forms, told apart by the methods the object has:
//  - key(job, now): a priority key, registered as an ordering policy, so that the built-in
//    admission, placement and preemption modules run it through ModularPolicy exactly as
//    they run the built-in keys;
//  - decide(view, events) -> schedkit.Decisions: a whole Policy (schedkit/policy.h).
//
// The GIL: every call into Python (key, next_key_change, decide, a class's constructor,
// dropping a Python reference) takes it for that call, so runs may go on in other threads
// (compare, sweep) and in a caller that released it (schedkit.simulate).
#ifndef SCHEDKIT_PYTHON_POLICY_BRIDGE_H_
#define SCHEDKIT_PYTHON_POLICY_BRIDGE_H_

#include <pybind11/pybind11.h>

#include <string>

#include "schedkit/registry.h"

namespace schedkit {

// Binds schedkit.Job, View, Events, Decisions, Placement, Resources and the base classes
// schedkit.Policy and schedkit.SchedulingPolicy into `m`.
void BindPolicies(pybind11::module_& m);

// How a registered Python policy gets its Python object.
enum class PythonPolicyObject {
  kInstance,  // `obj` itself serves the run (schedkit.simulate: one run).
  kClass,     // `obj` is a class, called with no arguments for each run (CLI: many runs).
};

// What a Python exception raised during a decision (in key, next_key_change or decide)
// becomes.
enum class PythonErrors {
  kRaise,  // It crosses the engine and reaches the caller (schedkit.simulate re-raises it).
  kFail,   // Decisions::Fail with its last traceback line: the run ends with that error.
};

// Registers `obj` into `regs` under its `name` attribute (default: its class's name) and
// returns that name. Throws TypeError if it has neither key nor decide, ValueError for a
// bad attribute or a name `regs` holds. REQUIRES: the GIL is held.
std::string RegisterPythonPolicy(const pybind11::object& obj, PythonPolicyObject kind,
                                 PythonErrors errors, Registries* regs);

// "ZeroDivisionError: division by zero": the last line Python's traceback of the exception
// being handled would print. REQUIRES: called from a catch block; takes the GIL.
std::string PythonErrorLine();

}  // namespace schedkit

#endif  // SCHEDKIT_PYTHON_POLICY_BRIDGE_H_
