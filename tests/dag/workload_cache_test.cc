// The DAG workload cache (src/dag/workload_cache.h): a cached load gives exactly the parsed
// workload, a changed JSON never reads an old cache, and a damaged cache file is a miss
// that is rebuilt, never a crash or a wrong workload.
#include "dag/workload_cache.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_files.h"

namespace schedkit {
namespace {

// Field by field; doubles compared exactly (the cache stores their bits).
void ExpectSameWorkload(const DagWorkload& a, const DagWorkload& b) {
  ASSERT_EQ(a.dags.size(), b.dags.size());
  for (size_t d = 0; d < a.dags.size(); ++d) {
    const DagTemplate& x = a.dags[d];
    const DagTemplate& y = b.dags[d];
    ASSERT_EQ(x.name, y.name);
    ASSERT_EQ(x.parents, y.parents) << x.name;
    ASSERT_EQ(x.stages.size(), y.stages.size()) << x.name;
    for (size_t s = 0; s < x.stages.size(); ++s) {
      const DagStageProfile& p = x.stages[s];
      const DagStageProfile& q = y.stages[s];
      ASSERT_EQ(p.num_tasks, q.num_tasks) << x.name << " stage " << s;
      ASSERT_EQ(p.rough_duration_ms, q.rough_duration_ms) << x.name << " stage " << s;
      const std::vector<DagDurations>* pw[] = {&p.first_wave, &p.rest_wave, &p.fresh_durations};
      const std::vector<DagDurations>* qw[] = {&q.first_wave, &q.rest_wave, &q.fresh_durations};
      for (int w = 0; w < 3; ++w) {
        ASSERT_EQ(pw[w]->size(), qw[w]->size()) << x.name << " stage " << s << " wave " << w;
        for (size_t l = 0; l < pw[w]->size(); ++l) {
          ASSERT_EQ((*pw[w])[l].level, (*qw[w])[l].level);
          ASSERT_EQ((*pw[w])[l].ms, (*qw[w])[l].ms) << x.name << " stage " << s << " wave " << w;
        }
      }
    }
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A fresh cache folder per test.
std::string CacheDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/dag_cache_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::string NativeDag(double first_ms) {
  return "{\"schedkit_dag\": 1, \"dags\": [{\"name\": \"d\", \"parents\": [[], [0]], \"stages\": ["
         "{\"num_tasks\": 2, \"first_wave\": {\"5\": [" + std::to_string(first_ms) + ", 2, 2]},"
         " \"rest_wave\": {\"5\": [3]}, \"fresh_durations\": {\"5\": [2]}},"
         "{\"num_tasks\": 1, \"first_wave\": {\"5\": [0.25]}, \"rest_wave\": {\"5\": []},"
         " \"fresh_durations\": {\"5\": []}}]}]}";
}

dag::DagCacheOptions Options(const std::string& dir) {
  dag::DagCacheOptions o;
  o.dir = dir;
  o.min_bytes = 0;  // Cache the small test files too.
  return o;
}

// A small DAG file, its parsed workload, and a good cache file for it in a fresh folder.
struct CachedFile {
  explicit CachedFile(const std::string& name)
      : dir(CacheDir(name)),
        json(NativeDag(1.5)),
        path(testing::WriteTempFile("dag_cache_" + name + ".json", json)),
        cache_file(dag::DagCachePath(dir, json)) {
    auto w = dag::LoadDagWorkloadCached(path, dag::DagCacheOptions{});
    EXPECT_TRUE(w.ok());
    parsed = *w;
    EXPECT_TRUE(dag::WriteDagCache(dir, json, parsed));
    good = ReadFile(cache_file);
  }
  std::string dir, json, path, cache_file, good;
  DagWorkload parsed;
};

TEST(DagWorkloadCache, TpchFromCacheIsTheParsedWorkload) {
  const std::string tpch = std::string(SCHEDKIT_SOURCE_DIR) + "/data/tpch/tpch.json";
  dag::DagCacheOptions cache;
  cache.dir = CacheDir("tpch");  // Default min_bytes: tpch.json (6.6 MB) is over it.
  auto parsed = dag::LoadDagWorkloadCached(tpch, dag::DagCacheOptions{});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  auto first = dag::LoadDagWorkloadCached(tpch, cache);  // Parses, writes the cache.
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string json = ReadFile(tpch);
  ASSERT_TRUE(std::filesystem::exists(dag::DagCachePath(cache.dir, json)));
  auto second = dag::LoadDagWorkloadCached(tpch, cache);  // From the cache.
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->source, tpch);
  ASSERT_EQ(parsed->dags.size(), 154u);  // 22 queries x 7 sizes.
  ExpectSameWorkload(*parsed, *second);
  auto direct = dag::ReadDagCache(cache.dir, json);
  ASSERT_TRUE(direct.has_value());
  ExpectSameWorkload(*parsed, *direct);
}

// The load really reads the cache: a cache file holding another workload for this JSON's
// bytes is what comes back.
TEST(DagWorkloadCache, LoadReadsTheCacheOfItsContent) {
  const std::string dir = CacheDir("reads");
  const std::string json = NativeDag(1.5);
  const std::string path = testing::WriteTempFile("dag_cache_reads.json", json);
  auto parsed = dag::LoadDagWorkloadCached(path, Options(dir));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  DagWorkload forged = *parsed;
  forged.dags[0].name = "forged";
  ASSERT_TRUE(dag::WriteDagCache(dir, json, forged));
  auto loaded = dag::LoadDagWorkloadCached(path, Options(dir));
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->dags[0].name, "forged");
}

// Another JSON (one number changed) never reads the first one's cache.
TEST(DagWorkloadCache, ChangedJsonIsNeverStale) {
  const std::string dir = CacheDir("stale");
  const std::string path = testing::WriteTempFile("dag_cache_stale.json", NativeDag(1.5));
  auto a = dag::LoadDagWorkloadCached(path, Options(dir));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->dags[0].stages[0].first_wave[0].ms, (std::vector<double>{1.5, 2}));
  WriteFile(path, NativeDag(7.5));  // Same length: only the content hash tells them apart.
  auto b = dag::LoadDagWorkloadCached(path, Options(dir));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->dags[0].stages[0].first_wave[0].ms, (std::vector<double>{7.5, 2}));
  EXPECT_NE(dag::DagCachePath(dir, NativeDag(1.5)), dag::DagCachePath(dir, NativeDag(7.5)));
}

TEST(DagWorkloadCache, DamagedCacheIsAMissAndIsRebuilt) {
  const CachedFile f("damaged");
  const std::string &dir = f.dir, &json = f.json, &path = f.path, &cache_file = f.cache_file,
                    &good = f.good;
  const DagWorkload* parsed = &f.parsed;
  ASSERT_GT(good.size(), 48u);
  auto damaged_reads_as_miss = [&](const std::string& bytes, const std::string& what) {
    WriteFile(cache_file, bytes);
    EXPECT_FALSE(dag::ReadDagCache(dir, json).has_value()) << what;
    auto w = dag::LoadDagWorkloadCached(path, Options(dir));  // Parses and rewrites.
    ASSERT_TRUE(w.ok()) << what;
    ExpectSameWorkload(*parsed, *w);
    EXPECT_EQ(ReadFile(cache_file), good) << what << ": not rebuilt";
  };
  for (size_t len : {size_t{0}, size_t{20}, size_t{48}, good.size() / 2, good.size() - 1}) {
    damaged_reads_as_miss(good.substr(0, len), "truncated to " + std::to_string(len));
  }
  for (size_t at : {size_t{0}, size_t{9}, size_t{17}, size_t{33}, size_t{60}, good.size() - 1}) {
    std::string bad = good;
    bad[at] ^= 0x5a;
    damaged_reads_as_miss(bad, "byte " + std::to_string(at) + " flipped");
  }
  damaged_reads_as_miss(good + "x", "a byte appended");
}

// A payload whose hash matches but whose counts are wrong (the hash is recomputed after
// each change, as a writer with a bug would): the reader's bounds checks refuse it
// without crashing or allocating what a huge count asks for.
TEST(DagWorkloadCache, ConsistentHashButBadPayloadDoesNotCrash) {
  const CachedFile f("payload");
  const std::string &dir = f.dir, &json = f.json, &cache_file = f.cache_file, &good = f.good;
  constexpr size_t kHeader = 48, kPayloadSizeAt = 32, kPayloadHashAt = 40;
  auto with_payload = [&](const std::string& payload) {
    std::string file = good.substr(0, kHeader) + payload;
    const uint64_t size = payload.size(), hash = dag::ContentHash(payload);
    std::memcpy(&file[kPayloadSizeAt], &size, 8);
    std::memcpy(&file[kPayloadHashAt], &hash, 8);
    return file;
  };
  WriteFile(cache_file, with_payload(good.substr(kHeader)));  // The layout above is right:
  ASSERT_TRUE(dag::ReadDagCache(dir, json).has_value());      // the good payload reads.
  int refused = 0;
  for (size_t at = kHeader; at < good.size(); ++at) {
    for (unsigned char v : {0x00, 0x7f, 0xff}) {
      std::string payload = good.substr(kHeader);
      payload[at - kHeader] = static_cast<char>(v);
      WriteFile(cache_file, with_payload(payload));
      if (!dag::ReadDagCache(dir, json).has_value()) ++refused;
    }
  }
  EXPECT_GT(refused, 0);
  WriteFile(cache_file, with_payload(good.substr(kHeader, 4)));  // Only the DAG count.
  EXPECT_FALSE(dag::ReadDagCache(dir, json).has_value());
}

TEST(DagWorkloadCache, SmallFilesAndUnwritableFoldersLoadWithoutCache) {
  const std::string json = NativeDag(1.5);
  const std::string path = testing::WriteTempFile("dag_cache_small.json", json);
  dag::DagCacheOptions cache;
  cache.dir = CacheDir("small");  // Default min_bytes (1 MB): this file is under it.
  ASSERT_TRUE(dag::LoadDagWorkloadCached(path, cache).ok());
  EXPECT_FALSE(std::filesystem::exists(cache.dir));
  // A regular file where the folder should be: nothing can be written, the load works.
  const std::string not_a_dir = testing::WriteTempFile("dag_cache_not_a_dir", "x");
  auto w = dag::LoadDagWorkloadCached(path, Options(not_a_dir));
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->dags[0].name, "d");
  EXPECT_FALSE(dag::WriteDagCache(not_a_dir, json, *w));
}

// Errors are the parser's, cache or not (a bad file is never cached).
TEST(DagWorkloadCache, BadFileGivesTheSameErrorAndNoCache) {
  const std::string dir = CacheDir("bad");
  const std::string path =
      testing::WriteTempFile("dag_cache_bad.json", "{\"schedkit_dag\": 2, \"dags\": []}");
  auto cached = dag::LoadDagWorkloadCached(path, Options(dir));
  auto plain = dag::LoadDagWorkloadCached(path, dag::DagCacheOptions{});
  ASSERT_FALSE(cached.ok());
  EXPECT_EQ(cached.status().message(), plain.status().message());
  EXPECT_FALSE(std::filesystem::exists(dir) && !std::filesystem::is_empty(dir));
}

}  // namespace
}  // namespace schedkit
