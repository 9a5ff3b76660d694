// The cache file: a 48-byte header, then the workload in declaration order, numbers in
// this machine's byte order (the header's byte-order mark refuses another machine's file):
//   u32 dags; per dag: u32 name length, name bytes, u32 stages;
//     per stage: i32 num_tasks, f64 rough_duration_ms, then first_wave, rest_wave and
//       fresh_durations, each u32 levels; per level: i32 level, u32 n, n x f64 ms;
//     then per stage: u32 parents, that many i32.
#include "dag/workload_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <type_traits>
#include <vector>

namespace schedkit::dag {
namespace {

constexpr char kMagic[8] = {'S', 'K', 'D', 'A', 'G', 'W', 'L', '\0'};
constexpr uint32_t kByteOrderMark = 0x01020304;

struct Header {
  char magic[8];
  uint32_t format;
  uint32_t byte_order;
  uint64_t json_size;
  uint64_t json_hash;
  uint64_t payload_size;
  uint64_t payload_hash;
};
static_assert(sizeof(Header) == 48 && std::is_trivially_copyable_v<Header>);

class Writer {
 public:
  template <class T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  void PutCount(size_t n) { Put(static_cast<uint32_t>(n)); }
  void PutDoubles(const std::vector<double>& v) {
    PutCount(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

// Reads what Writer wrote; every read is checked against the bytes left, and a failed
// read makes every later one fail too, so the caller checks ok() once at the end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T Get() {
    T v{};
    if (!Take(sizeof(T))) return v;
    std::memcpy(&v, in_.data() + pos_ - sizeof(T), sizeof(T));
    return v;
  }
  // A count of items of at least `item_bytes` each: never more than the bytes left hold,
  // so a corrupted count cannot ask for a huge allocation.
  size_t GetCount(size_t item_bytes) {
    const uint32_t n = Get<uint32_t>();
    if (ok_ && static_cast<uint64_t>(n) * item_bytes > in_.size() - pos_) ok_ = false;
    return ok_ ? n : 0;
  }
  void GetDoubles(std::vector<double>* v) {
    const size_t n = GetCount(sizeof(double));
    if (!Take(n * sizeof(double))) return;
    v->resize(n);
    std::memcpy(v->data(), in_.data() + pos_ - n * sizeof(double), n * sizeof(double));
  }
  std::string GetString() {
    const size_t n = GetCount(1);
    if (!Take(n)) return {};
    return std::string(in_.substr(pos_ - n, n));
  }
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  bool Take(size_t n) {
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return false;
    }
    pos_ += n;
    return true;
  }
  std::string_view in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

void PutWaves(Writer& w, const std::vector<DagDurations>& waves) {
  w.PutCount(waves.size());
  for (const DagDurations& d : waves) {
    w.Put<int32_t>(d.level);
    w.PutDoubles(d.ms);
  }
}

void GetWaves(Reader& r, std::vector<DagDurations>* waves) {
  waves->resize(r.GetCount(8));  // A level and a count at least.
  for (DagDurations& d : *waves) {
    d.level = r.Get<int32_t>();
    r.GetDoubles(&d.ms);
  }
}

std::string Serialize(const DagWorkload& workload) {
  Writer w;
  w.PutCount(workload.dags.size());
  for (const DagTemplate& dag : workload.dags) {
    w.PutCount(dag.name.size());
    w.bytes().append(dag.name);
    w.PutCount(dag.stages.size());
    for (const DagStageProfile& s : dag.stages) {
      w.Put<int32_t>(s.num_tasks);
      w.Put<double>(s.rough_duration_ms);
      PutWaves(w, s.first_wave);
      PutWaves(w, s.rest_wave);
      PutWaves(w, s.fresh_durations);
    }
    for (const std::vector<int>& p : dag.parents) {
      w.PutCount(p.size());
      for (int parent : p) w.Put<int32_t>(parent);
    }
  }
  return std::move(w.bytes());
}

std::optional<DagWorkload> Deserialize(std::string_view payload) {
  Reader r(payload);
  DagWorkload workload;
  workload.dags.resize(r.GetCount(8));  // A name length and a stage count at least.
  for (DagTemplate& dag : workload.dags) {
    dag.name = r.GetString();
    dag.stages.resize(r.GetCount(24));  // num_tasks, rough duration, three wave counts.
    dag.parents.resize(dag.stages.size());
    for (DagStageProfile& s : dag.stages) {
      s.num_tasks = r.Get<int32_t>();
      s.rough_duration_ms = r.Get<double>();
      GetWaves(r, &s.first_wave);
      GetWaves(r, &s.rest_wave);
      GetWaves(r, &s.fresh_durations);
    }
    for (std::vector<int>& p : dag.parents) {
      p.resize(r.GetCount(sizeof(int32_t)));
      for (int& parent : p) parent = r.Get<int32_t>();
    }
  }
  if (!r.ok() || !r.at_end()) return std::nullopt;
  return workload;
}

}  // namespace

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

bool MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  if (ok) {
    // MAP_POPULATE: the whole file is read next, so map it in one call rather than a
    // fault per 16 pages.
    void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                     MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ok = p != MAP_FAILED;
    if (ok) {
      data_ = p;
      size_ = static_cast<size_t>(st.st_size);
    }
  }
  ::close(fd);
  return ok;
}

uint64_t ContentHash(std::string_view bytes) {
  constexpr uint64_t kMul1 = 0x9E3779B97F4A7C15ULL, kMul2 = 0xC2B2AE3D27D4EB4FULL;
  // Four independent lanes over 32-byte blocks (no chain of multiplies through the whole
  // file), then the tail, then a final avalanche (MurmurHash3's fmix64 constants).
  uint64_t lane[4] = {kMul2 ^ bytes.size(), kMul1, kMul2, ~kMul1};
  const char* p = bytes.data();
  size_t left = bytes.size();
  auto mix = [&](uint64_t h, uint64_t word) { return std::rotl(h ^ (word * kMul1), 31) * kMul2; };
  for (; left >= 32; p += 32, left -= 32) {
    for (int i = 0; i < 4; ++i) {
      uint64_t word;
      std::memcpy(&word, p + 8 * i, 8);
      lane[i] = mix(lane[i], word);
    }
  }
  uint64_t h = lane[0] ^ std::rotl(lane[1], 17) ^ std::rotl(lane[2], 29) ^ std::rotl(lane[3], 43);
  for (; left > 0; p += 8, left -= std::min<size_t>(left, 8)) {
    uint64_t word = 0;
    std::memcpy(&word, p, std::min<size_t>(left, 8));
    h = mix(h, word);
  }
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}

DagCacheOptions DefaultDagCacheOptions() {
  DagCacheOptions options;
  if (const char* dir = std::getenv("SCHEDKIT_CACHE_DIR")) {
    options.dir = dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    options.dir = std::string(xdg) + "/schedkit";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    options.dir = std::string(home) + "/.cache/schedkit";
  }
  return options;
}

std::string DagCachePath(const std::string& dir, std::string_view json) {
  char name[96];
  std::snprintf(name, sizeof(name), "/dag-%016llx-%llu.v%u.bin",
                static_cast<unsigned long long>(ContentHash(json)),
                static_cast<unsigned long long>(json.size()), kDagCacheFormat);
  return dir + name;
}

std::optional<DagWorkload> ReadDagCache(const std::string& dir, std::string_view json) {
  MappedFile mapped;
  if (dir.empty() || !mapped.Open(DagCachePath(dir, json))) return std::nullopt;
  const std::string_view file = mapped.bytes();
  Header h;
  if (file.size() < sizeof(h)) return std::nullopt;
  std::memcpy(&h, file.data(), sizeof(h));
  const std::string_view payload = file.substr(sizeof(h));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0 || h.format != kDagCacheFormat ||
      h.byte_order != kByteOrderMark || h.json_size != json.size() ||
      h.json_hash != ContentHash(json) || h.payload_size != payload.size() ||
      h.payload_hash != ContentHash(payload)) {
    return std::nullopt;
  }
  return Deserialize(payload);
}

bool WriteDagCache(const std::string& dir, std::string_view json, const DagWorkload& workload) {
  if (dir.empty()) return false;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  const std::string payload = Serialize(workload);
  Header h;
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.format = kDagCacheFormat;
  h.byte_order = kByteOrderMark;
  h.json_size = json.size();
  h.json_hash = ContentHash(json);
  h.payload_size = payload.size();
  h.payload_hash = ContentHash(payload);
  const std::string path = DagCachePath(dir, json);
  // Unique per process: two processes filling the same cache never share a temporary.
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return false;
  bool ok = std::fwrite(&h, sizeof(h), 1, f) == 1 &&
            std::fwrite(payload.data(), 1, payload.size(), f) == payload.size();
  ok = std::fclose(f) == 0 && ok;
  if (ok) {
    std::filesystem::rename(tmp, path, ec);
    ok = !ec;
  }
  if (!ok) std::filesystem::remove(tmp, ec);
  return ok;
}

}  // namespace schedkit::dag
