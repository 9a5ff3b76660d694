// LoadClusterSpec: Muri/Tiresias and native cluster spec files (see docs/formats.md).
#include <string>

#include "schedkit/cluster.h"
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

}  // namespace

Result<ClusterSpec> LoadClusterSpec(const std::string& path) {
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
  } else {
    return Status::InvalidArgument(
        path + ":" + std::to_string(in.header_line()) +
        ": unrecognized cluster spec header; expected "
        "'switch,nodes,gpus_per_node,cpus_per_node,mem_gb_per_node,gpu_type' or "
        "'num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node'");
  }
  return spec;
}

}  // namespace schedkit
