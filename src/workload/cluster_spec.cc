// LoadClusterSpec: Muri/Tiresias and native cluster spec files (see docs/formats.md).
#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/sharing.h"
#include "workload/csv.h"

namespace schedkit {
namespace {

// Guards against a typo such as 1e9 nodes allocating gigabytes of NodeSpecs.
constexpr int64_t kMaxNodes = 1 << 20;

Status LoadMuriSpec(workload::CsvReader& in, ClusterSpec* spec) {
  int switches_col, nodes_col, gpus_col, cpus_col, mem_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("num_switch", &switches_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("num_node_p_switch", &nodes_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("num_gpu_p_node", &gpus_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("num_cpu_p_node", &cpus_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("mem_p_node", &mem_col));
  if (!in.Next()) {
    SCHEDKIT_RETURN_IF_ERROR(in.status());
    return Status::InvalidArgument(in.file() + ": no data row after the header");
  }
  int64_t switches = 0, nodes_per_switch = 0;
  NodeSpec node;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(switches_col, &switches, 1, kMaxNodes));
  SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(nodes_col, &nodes_per_switch, 1, kMaxNodes));
  SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(gpus_col, &node.gpus, 1, kMaxGpusPerNode));
  SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(cpus_col, &node.cpus, 0));
  SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(mem_col, &node.mem_gb, 0));
  if (switches * nodes_per_switch > kMaxNodes) {
    return in.FieldError(nodes_col, "makes more than " + std::to_string(kMaxNodes) + " nodes");
  }
  if (in.Next()) return in.Error("a Muri cluster spec has exactly one data row");
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  for (int s = 0; s < switches; ++s) {
    node.switch_id = s;
    for (int n = 0; n < nodes_per_switch; ++n) spec->nodes.push_back(node);
  }
  return Status::Ok();
}

Status LoadNativeSpec(workload::CsvReader& in, ClusterSpec* spec) {
  int switch_col, nodes_col, gpus_col, cpus_col, mem_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("switch", &switch_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("nodes", &nodes_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("gpus_per_node", &gpus_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("cpus_per_node", &cpus_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("mem_gb_per_node", &mem_col));
  const int type_col = in.ColumnIndex("gpu_type");
  int last_switch = -1;
  while (in.Next()) {
    NodeSpec node;
    int64_t nodes = 0;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(switch_col, &node.switch_id, 0));
    // Switch ids run 0, 1, 2, ... so that the nodes of a switch are contiguous.
    if (node.switch_id != last_switch && node.switch_id != last_switch + 1) {
      return in.FieldError(switch_col, last_switch < 0
                                           ? std::string("must be 0 on the first row")
                                           : "must be " + std::to_string(last_switch) + " or " +
                                                 std::to_string(last_switch + 1) +
                                                 " (switch ids are contiguous and non-decreasing)");
    }
    last_switch = node.switch_id;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(nodes_col, &nodes, 1, kMaxNodes));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(gpus_col, &node.gpus, 1, kMaxGpusPerNode));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(cpus_col, &node.cpus, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(mem_col, &node.mem_gb, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadOptionalString(type_col, &node.gpu_type));
    if (static_cast<int64_t>(spec->nodes.size()) + nodes > kMaxNodes) {
      return in.FieldError(nodes_col, "makes more than " + std::to_string(kMaxNodes) + " nodes");
    }
    spec->nodes.insert(spec->nodes.end(), static_cast<size_t>(nodes), node);
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  if (spec->nodes.empty()) {
    return Status::InvalidArgument(in.file() + ": no node rows after the header");
  }
  return Status::Ok();
}

// Gavel's cluster specs (msr_cluster_specs.json): {"NAME": ["V:P:K", ...]}, the numbers
// of v100, p100 and k80 GPUs, the order of Gavel's --cluster_spec. Gavel's simulator
// assigns GPUs, not servers, so each GPU is a node of its own; one switch per type.
constexpr const char* kGavelTypes[] = {"v100", "p100", "k80"};

Status LoadGavelSpec(const std::string& file, const std::string& selector, ClusterSpec* spec) {
  std::ifstream f(file, std::ios::binary);
  if (!f) return Status::NotFound(file + ": cannot open");
  nlohmann::json root = nlohmann::json::parse(f, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return Status::InvalidArgument(file + ": not a JSON object of Gavel cluster specs");
  }
  std::string names;
  for (auto it = root.begin(); it != root.end(); ++it) {
    names += (names.empty() ? "" : ", ") + it.key();
  }
  std::string name = selector;
  int64_t index = 0;
  if (const size_t slash = selector.find('/'); slash != std::string::npos) {
    name = selector.substr(0, slash);
    if (!workload::ParseInt64(std::string_view(selector).substr(slash + 1), &index) ||
        index < 0) {
      return Status::InvalidArgument(file + ": '#" + selector +
                                     "': the index after '/' is not an integer >= 0");
    }
  }
  if (name.empty()) {
    if (root.size() != 1) {
      return Status::InvalidArgument(file + ": holds " + std::to_string(root.size()) +
                                     " cluster specs (" + names + "); name one as " + file +
                                     "#NAME");
    }
    name = root.begin().key();
  }
  auto entry = root.find(name);
  if (entry == root.end()) {
    return Status::InvalidArgument(file + ": no cluster spec '" + name + "' (has: " + names + ")");
  }
  if (!entry->is_array() || entry->empty()) {
    return Status::InvalidArgument(file + ": '" + name + "' is not a list of \"V:P:K\" specs");
  }
  if (selector.find('/') == std::string::npos && entry->size() != 1) {
    return Status::InvalidArgument(file + ": '" + name + "' holds " +
                                   std::to_string(entry->size()) + " specs; name one as " + file +
                                   "#" + name + "/INDEX");
  }
  if (index >= static_cast<int64_t>(entry->size())) {
    return Status::InvalidArgument(file + ": '" + name + "' has " +
                                   std::to_string(entry->size()) + " specs, no index " +
                                   std::to_string(index));
  }
  const nlohmann::json& value = (*entry)[static_cast<size_t>(index)];
  const std::string at = file + ": '" + name + "'[" + std::to_string(index) + "]";
  if (!value.is_string()) return Status::InvalidArgument(at + " is not a \"V:P:K\" string");
  const std::string text = value.get<std::string>();
  std::vector<int64_t> counts;
  size_t begin = 0;
  while (true) {
    const size_t end = std::min(text.find(':', begin), text.size());
    int64_t n = 0;
    if (!workload::ParseInt64(std::string_view(text).substr(begin, end - begin), &n) || n < 0 ||
        n > kMaxNodes) {
      return Status::InvalidArgument(at + ": '" + text +
                                     "' is not V100:P100:K80 GPU counts (integers >= 0)");
    }
    counts.push_back(n);
    if (end == text.size()) break;
    begin = end + 1;
  }
  if (counts.size() != std::size(kGavelTypes)) {
    return Status::InvalidArgument(at + ": '" + text + "' has " + std::to_string(counts.size()) +
                                   " counts, expected 3 (V100:P100:K80)");
  }
  int switch_id = 0;
  for (size_t t = 0; t < counts.size(); ++t) {
    if (counts[t] == 0) continue;
    if (static_cast<int64_t>(spec->nodes.size()) + counts[t] > kMaxNodes) {
      return Status::InvalidArgument(at + ": makes more than " + std::to_string(kMaxNodes) +
                                     " nodes");
    }
    NodeSpec node;
    node.switch_id = switch_id++;
    node.gpus = 1;
    node.gpu_type = kGavelTypes[t];
    spec->nodes.insert(spec->nodes.end(), static_cast<size_t>(counts[t]), node);
  }
  if (spec->nodes.empty()) return Status::InvalidArgument(at + ": '" + text + "' has no GPU");
  return Status::Ok();
}

// True iff the file's first non-blank character is '{' (a JSON object).
bool LooksLikeJson(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char c = 0;
  while (f.get(c)) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c == '{';
  }
  return false;
}

}  // namespace

Result<ClusterSpec> LoadClusterSpec(const std::string& path) {
  // "FILE#NAME[/I]" selects one of a Gavel JSON file's specs.
  if (const size_t hash = path.rfind('#'); hash != std::string::npos && LooksLikeJson(path.substr(0, hash))) {
    ClusterSpec spec;
    spec.source = path;
    SCHEDKIT_RETURN_IF_ERROR(LoadGavelSpec(path.substr(0, hash), path.substr(hash + 1), &spec));
    return spec;
  }
  if (LooksLikeJson(path)) {
    ClusterSpec spec;
    spec.source = path;
    SCHEDKIT_RETURN_IF_ERROR(LoadGavelSpec(path, "", &spec));
    return spec;
  }
  auto opened = workload::CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  workload::CsvReader& in = **opened;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadHeader());
  ClusterSpec spec;
  spec.source = path;
  if (in.HasColumn("num_switch")) {
    SCHEDKIT_RETURN_IF_ERROR(LoadMuriSpec(in, &spec));
  } else if (in.HasColumn("switch")) {
    SCHEDKIT_RETURN_IF_ERROR(LoadNativeSpec(in, &spec));
  } else if (in.HasColumn("sn") && in.HasColumn("gpu") && in.HasColumn("model")) {
    // An openb node list (docs/fgd.md): one node per row, all on switch 0; CPU capacity in
    // whole cores (cpu_milli / 1000, rounded down), memory in GB (MiB / 1024).
    Result<sharing::SharingClusterSpec> nodes = sharing::LoadOpenbNodes(path);
    if (!nodes.ok()) return nodes.status();
    for (const sharing::SharingNodeSpec& n : nodes->nodes) {
      spec.nodes.push_back(NodeSpec{0, n.gpus, static_cast<int>(n.cpu_milli / 1000),
                                    static_cast<double>(n.mem_mib) / 1024.0,
                                    n.gpu_model.empty() ? kGenericGpuType : n.gpu_model});
    }
  } else {
    return Status::InvalidArgument(
        path + ":" + std::to_string(in.header_line()) +
        ": unrecognized cluster spec header; expected "
        "'switch,nodes,gpus_per_node,cpus_per_node,mem_gb_per_node,gpu_type' or "
        "'num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node' or an openb "
        "node list 'sn,cpu_milli,memory_mib,gpu,model'");
  }
  return spec;
}

}  // namespace schedkit
