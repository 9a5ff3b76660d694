// The trace of a Lucid experiment: the Venus September window by default.
#include "lucid/venus.h"
#include "schedkit/lucid.h"
#include "workload/trace_formats.h"

namespace schedkit::lucid {

Result<Trace> LoadExperimentTrace(const std::string& path, TraceOptions options,
                                  const std::vector<VirtualCluster>& vcs) {
  // Lucid drops jobs of unconfigured VCs before it anchors the log's times.
  options.lucid_vcs.clear();
  for (const VirtualCluster& vc : vcs) options.lucid_vcs.push_back(vc.name);
  TraceFormat format = options.format;
  if (format == TraceFormat::kAuto) {
    Result<TraceFormat> detected = DetectTraceFormat(path);
    if (!detected.ok()) return detected.status();
    format = *detected;
  }
  const bool window_given = !options.window_begin.empty() || !options.window_end.empty();
  if (format != TraceFormat::kLucid || window_given) return LoadTrace(path, options);
  options.window_begin = kVenusWindowBegin;
  options.window_end = kVenusWindowEnd;
  return workload::LoadLucidTrace(path, options, kVenusWindowAnchor);
}

}  // namespace schedkit::lucid
