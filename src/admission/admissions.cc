// The built-in admission modules.
//  accept-all  Every arrival is admitted at once.
//  load-based  Blox: admit in arrival order while the GPU demand of admitted, unfinished
//              jobs stays within threshold x the cluster's GPUs; the rest wait.
#include "registry/builtins.h"

namespace schedkit {
namespace {

class AcceptAll final : public AdmissionModule {
 public:
  std::string_view Name() const override { return "accept-all"; }
  void Admit(const ClusterView&, const std::vector<JobId>& waiting, int64_t,
             std::vector<JobId>* admitted) override {
    admitted->insert(admitted->end(), waiting.begin(), waiting.end());
  }
};

class LoadBased final : public AdmissionModule {
 public:
  explicit LoadBased(double threshold) : threshold_(threshold) {}
  std::string_view Name() const override { return "load-based"; }
  void Admit(const ClusterView& view, const std::vector<JobId>& waiting, int64_t demand,
             std::vector<JobId>* admitted) override {
    const double limit = threshold_ * view.Resources().total_gpus();
    for (JobId id : waiting) {
      const int gpus = view.Spec(id).gpus;
      // An idle system admits the head even if it alone exceeds the limit.
      if (demand > 0 && demand + gpus > limit) break;
      demand += gpus;
      admitted->push_back(id);
    }
  }

 private:
  double threshold_;
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
                   "admitted GPU demand limit, as a multiple of the cluster's GPUs"}};
  load.factory = [](ModuleContext& ctx) -> Result<std::unique_ptr<AdmissionModule>> {
    const double t = ctx.options.Double("threshold");
    if (t <= 0) return Status::InvalidArgument("load-based: option 'threshold' must be > 0");
    return std::unique_ptr<AdmissionModule>(std::make_unique<LoadBased>(t));
  };
  return r->admissions.Register(std::move(load));
}

}  // namespace schedkit
