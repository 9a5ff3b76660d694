// Fuzz target: DAG workloads (LoadDagWorkload: tpch.json's layout or the native DAG JSON,
// docs/dag.md).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "schedkit/dag.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = schedkit::fuzz::InputFiles::Get().Write(
      "dag.json", std::string_view(reinterpret_cast<const char*>(data), size));
  (void)schedkit::LoadDagWorkload(path);
  return 0;
}
