// A plugin whose admission module's name has a space (no `--admission` could name it in a
// list or a sweep run's folder): `--plugin` must refuse it (test_plugins.py).
#include "schedkit/plugin.h"

namespace {

struct AdmitAll final : schedkit::AdmissionModule {
  std::string_view Name() const override { return "admit all"; }
  void Admit(const schedkit::ClusterView&, const std::vector<schedkit::JobId>& waiting, int64_t,
             std::vector<schedkit::JobId>* admitted) override {
    admitted->insert(admitted->end(), waiting.begin(), waiting.end());
  }
};

}  // namespace

SCHEDKIT_PLUGIN(registries) {
  schedkit::AdmissionRegistry::Entry entry;
  entry.name = "admit all";
  entry.description = "Admit every arrival";
  entry.factory = [](schedkit::ModuleContext&)
      -> schedkit::Result<std::unique_ptr<schedkit::AdmissionModule>> {
    return std::unique_ptr<schedkit::AdmissionModule>(std::make_unique<AdmitAll>());
  };
  return registries->admissions.Register(std::move(entry));
}
