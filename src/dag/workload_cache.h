// A compact binary form of a loaded DAG workload, cached on disk under the checksum of the
// JSON it came from, so that a large file (tpch.json: 6.6 MB of text, 1.7 M numbers) is
// parsed and preprocessed once per content, not once per process.
//
// Never stale: the cache file is named after the JSON's length and 64-bit content hash and
// the format below (kDagCacheFormat), and its header repeats both; any change to the file's
// bytes gives another name. Never trusted blindly: the header carries the payload's length
// and hash, and the reader checks every count against the bytes left, so a truncated,
// corrupted or foreign cache file reads as a miss (the JSON is parsed again and the cache
// rewritten), never as a crash or a wrong workload.
#ifndef SCHEDKIT_DAG_WORKLOAD_CACHE_H_
#define SCHEDKIT_DAG_WORKLOAD_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "schedkit/dag.h"

namespace schedkit::dag {

// Bump whenever what LoadDagWorkload computes from the same JSON changes (the
// preprocessing in PreprocessStageProfile, num_tasks, template names or order) or the
// layout below does: old cache files then stop matching by name and are ignored.
inline constexpr uint32_t kDagCacheFormat = 1;

// JSON files smaller than this load from text (parsing them costs less than the cache's
// file operations, and the cache folder stays free of tests' small files).
inline constexpr uint64_t kDagCacheMinBytes = 1 << 20;

struct DagCacheOptions {
  // Folder of the cache files; empty = no cache. Created when missing.
  std::string dir;
  uint64_t min_bytes = kDagCacheMinBytes;
};

// A whole file mapped read-only (its pages come from the page cache, many per fault,
// instead of being copied into a buffer that faults one page at a time).
class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  // False when `path` cannot be opened or mapped, or is not a regular file.
  bool Open(const std::string& path);
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// $SCHEDKIT_CACHE_DIR when set (set but empty: no cache), else $XDG_CACHE_HOME/schedkit,
// else $HOME/.cache/schedkit, else no cache.
DagCacheOptions DefaultDagCacheOptions();

// 64-bit hash of `bytes` (not cryptographic: it names content and catches corruption).
uint64_t ContentHash(std::string_view bytes);

// The cache file for JSON text `json` under `dir`.
std::string DagCachePath(const std::string& dir, std::string_view json);

// The workload cached for `json` (source left empty), or nullopt when there is no usable
// cache file (absent, unreadable, truncated, corrupted, another format).
std::optional<DagWorkload> ReadDagCache(const std::string& dir, std::string_view json);

// Writes `workload` as the cache of `json`: to a temporary file renamed into place, so a
// reader never sees half a file. Returns false (and leaves no file) when it cannot write;
// the caller carries on without a cache.
bool WriteDagCache(const std::string& dir, std::string_view json, const DagWorkload& workload);

// LoadDagWorkload with explicit cache options (tests; the public one uses the defaults).
Result<DagWorkload> LoadDagWorkloadCached(const std::string& path, const DagCacheOptions& cache);

}  // namespace schedkit::dag

#endif  // SCHEDKIT_DAG_WORKLOAD_CACHE_H_
