#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>

#include "schedkit/registry.h"

namespace schedkit {
namespace {

bool ParseDouble(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*out);
}

bool ParseInt(const std::string& text, int64_t* out) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

bool ParseBool(const std::string& text, bool* out) {
  if (text == "true" || text == "1" || text == "yes") return *out = true, true;
  if (text == "false" || text == "0" || text == "no") return *out = false, true;
  return false;
}

bool ParseDoubleList(const std::string& text, std::vector<double>* out) {
  out->clear();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(":,", start);
    if (end == std::string::npos) end = text.size();
    double v;
    if (!ParseDouble(text.substr(start, end - start), &v)) return false;
    out->push_back(v);
    start = end + 1;
  }
  return !out->empty();
}

bool Valid(OptionSpec::Type type, const std::string& text) {
  double d;
  int64_t i;
  bool b;
  std::vector<double> list;
  switch (type) {
    case OptionSpec::Type::kInt: return ParseInt(text, &i);
    case OptionSpec::Type::kDouble: return ParseDouble(text, &d);
    case OptionSpec::Type::kBool: return ParseBool(text, &b);
    case OptionSpec::Type::kDoubleList: return ParseDoubleList(text, &list);
    case OptionSpec::Type::kString: return true;
  }
  return false;
}

}  // namespace

const char* OptionSpec::TypeName(Type t) {
  switch (t) {
    case Type::kInt: return "integer";
    case Type::kDouble: return "number";
    case Type::kBool: return "bool";
    case Type::kString: return "string";
    case Type::kDoubleList: return "list of numbers (a:b:...)";
  }
  return "?";
}

Result<OptionValues> OptionValues::Parse(const std::string& owner,
                                         const std::vector<OptionSpec>& specs,
                                         const std::map<std::string, std::string>& raw) {
  OptionValues values;
  for (const OptionSpec& spec : specs) values.values_[spec.name] = spec.default_value;
  for (const auto& [key, text] : raw) {
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (s.name == key) spec = &s;
    }
    if (spec == nullptr) {
      std::string known;
      for (const OptionSpec& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      return Status::InvalidArgument(owner + ": unknown option " + Quoted(key) + " (options: " +
                                     (known.empty() ? "none" : known) + ")");
    }
    if (!Valid(spec->type, text)) {
      const bool numeric = spec->type == OptionSpec::Type::kDouble ||
                           spec->type == OptionSpec::Type::kDoubleList;
      return Status::InvalidArgument(owner + ": option '" + key + "': " + Quoted(text) + " is not " +
                                     (numeric ? "a finite " : "a valid ") +
                                     OptionSpec::TypeName(spec->type));
    }
    values.values_[key] = text;
  }
  return values;
}

const std::string& OptionValues::Raw(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    std::fprintf(stderr, "schedkit: internal error: undeclared option '%s'\n", name.c_str());
    std::abort();
  }
  return it->second;
}

int64_t OptionValues::Int(const std::string& name) const {
  int64_t v = 0;
  ParseInt(Raw(name), &v);
  return v;
}
double OptionValues::Double(const std::string& name) const {
  double v = 0;
  ParseDouble(Raw(name), &v);
  return v;
}
bool OptionValues::Bool(const std::string& name) const {
  bool v = false;
  ParseBool(Raw(name), &v);
  return v;
}
const std::string& OptionValues::String(const std::string& name) const { return Raw(name); }
std::vector<double> OptionValues::DoubleList(const std::string& name) const {
  std::vector<double> v;
  ParseDoubleList(Raw(name), &v);
  return v;
}

namespace {

// Splits "placement.k" / "admission.k" / "k" options by the module they address.
struct RoutedOptions {
  std::map<std::string, std::string> policy, placement, admission;
};

RoutedOptions Route(const std::map<std::string, std::string>& options) {
  RoutedOptions r;
  for (const auto& [key, value] : options) {
    if (key.rfind("placement.", 0) == 0) {
      r.placement[key.substr(10)] = value;
    } else if (key.rfind("admission.", 0) == 0) {
      r.admission[key.substr(10)] = value;
    } else {
      r.policy[key] = value;
    }
  }
  return r;
}

template <typename Module>
Result<std::unique_ptr<Module>> MakeModule(const Registry<Module, ModuleContext>& registry,
                                           const std::string& kind, const std::string& name,
                                           const std::map<std::string, std::string>& raw,
                                           const Trace* trace) {
  const auto* entry = registry.Find(name);
  if (entry == nullptr) {
    return Status::NotFound("unknown " + kind + " " + Quoted(name) + " (known: " + registry.Names() + ")");
  }
  Result<OptionValues> values = OptionValues::Parse(kind + " " + name, entry->options, raw);
  if (!values.ok()) return values.status();
  ModuleContext ctx{std::move(values).value(), trace};
  return entry->factory(ctx);
}

}  // namespace

Status CheckModulesTaken(const PolicyRegistry::Entry& entry, const PolicyRequest& request,
                         std::string* field) {
  struct Slot {
    const char* kind;
    const char* verb;  // What the policy does itself instead.
    bool taken;
    const std::string& named;
  };
  for (const Slot& slot :
       {Slot{"placement", "places", entry.takes_placement, request.placement},
        Slot{"admission", "admits", entry.takes_admission, request.admission}}) {
    if (slot.taken) continue;
    const std::string refusal = "policy " + Quoted(entry.name) + " takes no " + slot.kind +
                                " module (it " + slot.verb + " jobs itself): ";
    if (!slot.named.empty()) {
      if (field != nullptr) *field = slot.kind;
      return Status::InvalidArgument(refusal + slot.kind + " " + Quoted(slot.named) +
                                     " would be ignored");
    }
    const std::string prefix = std::string(slot.kind) + ".";
    for (const auto& [key, value] : request.options) {
      if (key.rfind(prefix, 0) != 0) continue;
      if (field != nullptr) *field = key;
      return Status::InvalidArgument(refusal + "option " + Quoted(key) + " would be ignored");
    }
  }
  return Status::Ok();
}

std::string PlacementOf(const PolicyRequest& request, const Registries& registries) {
  if (!request.placement.empty()) return request.placement;
  const PolicyRegistry::Entry* entry = registries.policies.Find(request.policy);
  if (entry == nullptr || !entry->takes_placement) return "";
  const std::string& profile = ProfileFor(request.compat).default_placement;
  return !profile.empty() ? profile : entry->default_placement;
}

Result<std::unique_ptr<Policy>> MakePolicy(const PolicyRequest& request,
                                           const Registries& registries) {
  return MakePolicy(request, ProfileFor(request.compat).knobs, registries);
}

Result<std::unique_ptr<Policy>> MakePolicy(const PolicyRequest& request, const PolicyKnobs& knobs,
                                           const Registries& registries) {
  if (ProfileFor(request.compat).own_engine) {
    return Status::InvalidArgument(
        "compat lucid runs on its own engine (lucid::RunCompat, `schedkit simulate --compat "
        "lucid`), not through MakePolicy");
  }
  const PolicyRegistry::Entry* entry = registries.policies.Find(request.policy);
  if (entry == nullptr) {
    return Status::NotFound("unknown policy " + Quoted(request.policy) +
                            " (known: " + registries.policies.Names() + ")");
  }
  SCHEDKIT_RETURN_IF_ERROR(CheckModulesTaken(*entry, request));
  RoutedOptions routed = Route(request.options);
  Result<OptionValues> values = OptionValues::Parse(request.policy, entry->options, routed.policy);
  if (!values.ok()) return values.status();
  PolicyContext ctx;
  ctx.options = std::move(values).value();
  ctx.seed = request.seed;
  ctx.knobs = knobs;
  const std::string placement = PlacementOf(request, registries);
  if (!placement.empty()) {
    auto p = MakeModule(registries.placements, "placement", placement, routed.placement,
                        request.trace);
    if (!p.ok()) return p.status();
    ctx.placement = std::move(p).value();
  }
  const std::string admission =
      request.admission.empty() ? entry->default_admission : request.admission;
  if (entry->takes_admission && !admission.empty()) {
    auto a = MakeModule(registries.admissions, "admission", admission, routed.admission,
                        request.trace);
    if (!a.ok()) return a.status();
    ctx.admission = std::move(a).value();
  }
  return entry->factory(ctx);
}

}  // namespace schedkit
