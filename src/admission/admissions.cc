// The built-in admission modules.
//  accept-all  Every arrival is admitted at once.
//  load-based  Blox: admit in arrival order while the GPU demand of admitted, unfinished
//              jobs is within threshold x the cluster's GPUs; the job that crosses the
//              limit is admitted too (Blox checks before it adds), unless admit_crossing
//              is false; the rest wait.
#include "registry/builtins.h"

namespace schedkit {
namespace {

class AcceptAll final : public CopyableModule<AcceptAll, AdmissionModule> {
 public:
  std::string_view Name() const override { return "accept-all"; }
  void Admit(const ClusterView&, const std::vector<JobId>& waiting, int64_t,
             std::vector<JobId>* admitted) override {
    admitted->insert(admitted->end(), waiting.begin(), waiting.end());
  }
};

class LoadBased final : public CopyableModule<LoadBased, AdmissionModule> {
 public:
  LoadBased(double threshold, bool admit_crossing)
      : threshold_(threshold), admit_crossing_(admit_crossing) {}
  std::string_view Name() const override { return "load-based"; }
  void Admit(const ClusterView& view, const std::vector<JobId>& waiting, int64_t demand,
             std::vector<JobId>* admitted) override {
    const double limit = threshold_ * view.Resources().total_gpus();
    for (JobId id : waiting) {
      const int gpus = view.Spec(id).gpus;
      // Either way, an idle system admits the head even if it alone exceeds the limit.
      const double checked = admit_crossing_ ? demand : demand + gpus;
      if (demand > 0 && checked > limit) break;
      demand += gpus;
      admitted->push_back(id);
    }
  }

 private:
  double threshold_;
  bool admit_crossing_;
};

}  // namespace

Status RegisterAdmissions(Registries* r) {
  AdmissionRegistry::Entry all;
  all.name = "accept-all";
  all.description = "Admit every arrival at once";
  all.factory = [](ModuleContext&) -> Result<std::unique_ptr<AdmissionModule>> {
    return std::unique_ptr<AdmissionModule>(std::make_unique<AcceptAll>());
  };
  SCHEDKIT_RETURN_IF_ERROR(r->admissions.Register(std::move(all)));

  AdmissionRegistry::Entry load;
  load.name = "load-based";
  load.description = "Admit in arrival order while admitted GPU demand <= threshold x GPUs (Blox)";
  load.options = {{"threshold", OptionSpec::Type::kDouble, "1.2",
                   "admitted GPU demand limit, as a multiple of the cluster's GPUs"},
                  {"admit_crossing", OptionSpec::Type::kBool, "true",
                   "admit the job that crosses the limit, as Blox does (false: stop before it)"}};
  load.factory = [](ModuleContext& ctx) -> Result<std::unique_ptr<AdmissionModule>> {
    const double t = ctx.options.Double("threshold");
    if (t <= 0) return Status::InvalidArgument("load-based: option 'threshold' must be > 0");
    return std::unique_ptr<AdmissionModule>(
        std::make_unique<LoadBased>(t, ctx.options.Bool("admit_crossing")));
  };
  return r->admissions.Register(std::move(load));
}

}  // namespace schedkit
