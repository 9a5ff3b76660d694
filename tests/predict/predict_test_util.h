// A small generated job log with a known additive structure, for the predictor tests.
#ifndef SCHEDKIT_TESTS_PREDICT_PREDICT_TEST_UTIL_H_
#define SCHEDKIT_TESTS_PREDICT_PREDICT_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>

#include "predict/civil_time.h"
#include "schedkit/job.h"

namespace schedkit::testing {

inline constexpr int64_t kLogEpoch = 1598918400;  // 2020-09-01 00:00:00 UTC.

// log(duration) = 6 + user effect (users u00..u11: -1.1 .. +1.1 in steps of 0.2)
//   + VC effect (vcA -0.5, vcB 0, vcC +0.5) + 0.3 log2(gpus)
//   + name effect ("debug_*" -1.5, "*pretrain*" +1.5, "ft_*" 0) + noise in [-0.5, 0.5).
// Jobs every 240..360 s; the hour and weekday carry no signal. mt19937_64's raw output is
// the same everywhere, so the log is too.
inline Trace MakeJobLog(int n, uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  auto uniform = [&] { return static_cast<double>(rng() % 1000000) / 1000000.0; };
  static const char* kVcs[] = {"vcA", "vcB", "vcC"};
  static const char* kNames[] = {"debug_run",        "bert_pretrain", "ft_resnet",
                                 "gpt_pretrain_big", "ft_bert",       "debug_test"};
  static const double kNameEffect[] = {-1.5, 1.5, 0, 1.5, 0, -1.5};
  static const int kGpus[] = {1, 2, 4, 8};
  Trace t;
  t.source = "generated log";
  t.epoch_unix_s = kLogEpoch;
  double submit = 0;
  for (int i = 0; i < n; ++i) {
    const int user = static_cast<int>(rng() % 12), vc = static_cast<int>(rng() % 3);
    const int name = static_cast<int>(rng() % 6), g = static_cast<int>(rng() % 4);
    const double log_d =
        6 + (-1.1 + 0.2 * user) + (vc - 1) * 0.5 + 0.3 * g + kNameEffect[name] + (uniform() - 0.5);
    char user_name[8];
    std::snprintf(user_name, sizeof user_name, "u%02d", user);
    t.jobs.push_back(JobBuilder(i + 1)
                         .Submit(submit)
                         .Gpus(kGpus[g])
                         .Duration(std::round(std::exp(log_d)))
                         .User(user_name)
                         .Vc(kVcs[vc])
                         .Name(std::string(kNames[name]) + "_" + std::to_string(rng() % 50))
                         .Build());
    submit += 240 + std::floor(uniform() * 120);
  }
  return t;
}

// Writes jobs [first, last) of `log` as a Lucid cluster_full_log (the columns the Lucid
// loader needs, plus user, jobname and one workload of Lucid's single_data.csv,
// (BERT, SQuAD, 32, no AMP), for Lucid's packing tables). With `anchor`, a job 0 at 2020-04-01
// 00:00:00 comes first: Lucid's loader counts time from the first job at or after that date and
// keeps only September, so a simulated September log needs it (the job itself is dropped).
// Returns false if the file cannot be written.
inline bool WriteLucidLog(const Trace& log, size_t first, size_t last, const std::string& path,
                          bool anchor = false) {
  std::ofstream out(path);
  out << "job_id,user,vc,jobname,gpu_num,submit_time,duration,model,dataset,batchsize,amp\n";
  const char* kWorkload = ",BERT,SQuAD,32,0\n";
  if (anchor) out << "0,anchor,vcA,anchor,1,2020-04-01 00:00:00,60" << kWorkload;
  for (size_t i = first; i < last; ++i) {
    const JobSpec& j = log.jobs[i];
    out << j.id << ',' << j.user << ',' << j.vc << ',' << j.name << ',' << j.gpus << ','
        << predict::FormatDateTime(log.epoch_unix_s + static_cast<int64_t>(j.submit_s)) << ','
        << static_cast<int64_t>(j.duration_s) << kWorkload;
  }
  return static_cast<bool>(out);
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_PREDICT_PREDICT_TEST_UTIL_H_
