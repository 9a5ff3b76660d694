// Synthetic workloads, drawn from a PortableRng (mechanisms/portable_rng.h) so that a seed
// gives the same trace on every standard library.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "schedkit/job_source.h"
#include "schedkit/throughput.h"
#include "schedkit/trace.h"
#include "mechanisms/portable_rng.h"
#include "workload/csv.h"

namespace schedkit {
namespace {

// Blox/Gavel: GPUs 1/2/4/8 at 70/10/15/5 %.
int BloxGpus(PortableRng& rng) {
  double r = rng.Uniform();
  if (r < 0.70) return 1;
  if (r < 0.80) return 2;
  if (r < 0.95) return 4;
  return 8;
}

// Blox/Gavel: minutes log-uniform, 80 % in [10^1.5, 10^3), 20 % in [10^3, 10^4).
double BloxDurationSeconds(PortableRng& rng) {
  bool long_job = rng.Uniform() >= 0.8;
  double exponent = long_job ? rng.Uniform(3.0, 4.0) : rng.Uniform(1.5, 3.0);
  return 60.0 * std::exp(exponent * 2.302585092994045684);  // 10^exponent minutes.
}

struct PhillyJob {
  double duration_s;
  int gpus;
};

Result<std::vector<PhillyJob>> LoadPhillyDistribution(const std::string& path) {
  auto opened = workload::CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  workload::CsvReader& in = **opened;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadHeader());
  int duration_col, gpus_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("duration_s", &duration_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("num_gpus", &gpus_col));
  std::vector<PhillyJob> rows;
  while (in.Next()) {
    PhillyJob row;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(duration_col, &row.duration_s, 0));
    if (!(row.duration_s > 0)) return in.FieldError(duration_col, "must be > 0");
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(gpus_col, &row.gpus, 1));
    rows.push_back(row);
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  if (rows.empty()) return Status::InvalidArgument(path + ": no rows");
  return rows;
}

// Gavel's generator's reference type: steps = duration x throughput on a V100.
constexpr const char kGavelReferenceType[] = "v100";

// The job types the table measured on the reference type, per scale factor 1/2/4/8.
struct GavelJobTypes {
  ThroughputTable table;
  std::map<int, std::vector<std::string>> by_scale_factor;
};

Result<GavelJobTypes> LoadGavelJobTypes(const std::string& path, bool multi_gpu) {
  if (path.empty()) {
    return Status::InvalidArgument(
        "generator: Gavel durations need gavel_throughputs_path (e.g. "
        "<data dir>/gavel/simulation_throughputs.json)");
  }
  Result<ThroughputTable> table = ThroughputTable::LoadGavel(path);
  if (!table.ok()) return table.status();
  GavelJobTypes out{std::move(table).value(), {}};
  for (int sf : multi_gpu ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{1}) {
    out.by_scale_factor[sf] = out.table.JobTypes(kGavelReferenceType, sf);
    if (out.by_scale_factor[sf].empty()) {
      return Status::InvalidArgument(path + ": no job type measured on GPU type '" +
                                     std::string(kGavelReferenceType) + "' at scale factor " +
                                     std::to_string(sf));
    }
  }
  return out;
}

// Draws a Gavel job: duration, scale factor, then job type; work in V100 steps.
Status DrawGavelJob(PortableRng& rng, const GavelJobTypes& types, bool multi_gpu, JobSpec* job) {
  const double duration_s = BloxDurationSeconds(rng);
  job->gpus = multi_gpu ? BloxGpus(rng) : 1;
  const std::vector<std::string>& candidates = types.by_scale_factor.at(job->gpus);
  const std::string& job_type = candidates[rng.Index(candidates.size())];
  ThroughputTable::SplitJobType(job_type, &job->profile.model, &job->profile.batch_size);
  const double ref = *types.table.Isolated(kGavelReferenceType, job_type, job->gpus);
  job->iterations = std::max<int64_t>(1, static_cast<int64_t>(duration_s * ref));
  job->iteration_time_s = 1.0 / ref;
  Result<std::vector<TypeSpeed>> speeds =
      types.table.Speeds(job_type, job->gpus, kGavelReferenceType);
  if (!speeds.ok()) return speeds.status();
  job->profile.type_speeds = std::move(speeds).value();
  return Status::Ok();
}

// Blox's dual load (simulator_dual_load.py). The base stream's durations are uniform
// in [36,000, 86,400] s, the burst stream's in [600, 3,600] s, and the burst arrives at
// kBurstRateFactor x the base rate while DualLoadBurstOn.
constexpr double kBaseMinS = 36000, kBaseMaxS = 86400;
constexpr double kBurstMinS = 600, kBurstMaxS = 3600;
constexpr double kBurstRateFactor = 4;
// The switch: on at multiples of kBurstOnEveryS, off at multiples of kBurstOffEveryS.
// Their least common multiple is the period; within it the burst is on in
// [kBurstOnEveryS, kBurstOffEveryS) and [2 kBurstOnEveryS, kBurstPeriodS).
constexpr double kBurstOnEveryS = 14400, kBurstOffEveryS = 21600;
constexpr double kBurstPeriodS = 43200;
constexpr double kFirstWindowS = kBurstOffEveryS - kBurstOnEveryS;           // 7,200 s on.
constexpr double kBurstOnPerPeriodS = kFirstWindowS + (kBurstPeriodS - 2 * kBurstOnEveryS);
// The burst stream draws from its own generator, seeded with the trace's seed plus this
// (an arbitrary odd constant), so that neither stream's draws depend on the other's.
constexpr uint64_t kBurstSeedOffset = 0x9E3779B97F4A7C15ULL;

// The sim time at which the burst stream has been on for `on_s` seconds: the burst's
// Poisson process runs on a clock that only ticks while the switch is on.
double BurstClockToTime(double on_s) {
  const double period = std::floor(on_s / kBurstOnPerPeriodS);
  const double r = on_s - period * kBurstOnPerPeriodS;
  const double offset = r < kFirstWindowS ? kBurstOnEveryS + r : 2 * kBurstOnEveryS + (r - kFirstWindowS);
  return period * kBurstPeriodS + offset;
}

struct DurationsEntry {
  const char* name;
  GeneratorConfig::Durations durations;
  bool gavel_multi_gpu;
};
constexpr DurationsEntry kDurationsNames[] = {
    {"blox", GeneratorConfig::Durations::kBlox, false},
    {"philly", GeneratorConfig::Durations::kPhilly, false},
    {"gavel", GeneratorConfig::Durations::kGavel, false},
    {"gavel-multi", GeneratorConfig::Durations::kGavel, true},
    {"blox-philly", GeneratorConfig::Durations::kBloxPhilly, false},
    {"dual-load", GeneratorConfig::Durations::kDualLoad, false},
};

}  // namespace

bool DualLoadBurstOn(double t_s) {
  const double r = t_s - std::floor(t_s / kBurstPeriodS) * kBurstPeriodS;
  return (r >= kBurstOnEveryS && r < kBurstOffEveryS) || r >= 2 * kBurstOnEveryS;
}

Status SetGeneratorDurations(const std::string& name, const std::string& data_dir,
                             GeneratorConfig* config) {
  std::string known;
  for (const DurationsEntry& d : kDurationsNames) {
    known += known.empty() ? "" : ", ";
    known += d.name;
    if (name != d.name) continue;
    config->durations = d.durations;
    config->gavel_multi_gpu = d.gavel_multi_gpu;
    if (d.durations == GeneratorConfig::Durations::kPhilly && config->philly_distribution_path.empty()) {
      config->philly_distribution_path = data_dir + "/gavel/philly_job_distribution.csv";
    }
    if (d.durations == GeneratorConfig::Durations::kGavel && config->gavel_throughputs_path.empty()) {
      config->gavel_throughputs_path = data_dir + "/gavel/simulation_throughputs.json";
    }
    return Status::Ok();
  }
  return Status::InvalidArgument("'" + name + "' is not one of " + known);
}

const char* GeneratorDurationsName(const GeneratorConfig& config) {
  for (const DurationsEntry& d : kDurationsNames) {
    if (d.durations == config.durations &&
        (d.durations != GeneratorConfig::Durations::kGavel || d.gavel_multi_gpu == config.gavel_multi_gpu)) {
      return d.name;
    }
  }
  return "unknown";
}

namespace {

// jobs_per_hour 0 = a static trace (every job submitted at 0; Gavel's lam = 0), except for
// the dual load, whose burst rate is a multiple of the base rate.
bool IsStaticTrace(const GeneratorConfig& config) {
  return config.jobs_per_hour == 0 && config.durations != GeneratorConfig::Durations::kDualLoad;
}

// The generator's draws, one job per Next: GenerateTrace collects them all, a streamed
// run reads them as the simulation goes.
class GeneratedJobs final : public JobSource {
 public:
  // REQUIRES: `config` passed CheckConfig; `philly` and `gavel` loaded for their kinds.
  GeneratedJobs(const GeneratorConfig& config, std::vector<PhillyJob> philly, GavelJobTypes gavel)
      : config_(config),
        philly_(std::move(philly)),
        gavel_(std::move(gavel)),
        rng_(config.seed),
        static_trace_(IsStaticTrace(config)),
        mean_gap_s_(static_trace_ ? 0.0 : 3600.0 / config.jobs_per_hour) {
    if (config_.durations == GeneratorConfig::Durations::kDualLoad) {
      // The next job of each stream: its arrival, then its duration (the draw order).
      // The base stream's first job arrives at 0, as the others do.
      base_duration_ = rng_.Uniform(kBaseMinS, kBaseMaxS);
      burst_.Seed(config.seed + kBurstSeedOffset);
      burst_clock_ = burst_.Exponential(mean_gap_s_ / kBurstRateFactor);
      burst_at_ = BurstClockToTime(burst_clock_);
      burst_duration_ = burst_.Uniform(kBurstMinS, kBurstMaxS);
    }
  }

  bool Next(JobSpec* out) override {
    if (!status_.ok() || next_id_ >= config_.num_jobs) return false;
    JobSpec job;
    job.id = next_id_;
    if (config_.durations == GeneratorConfig::Durations::kDualLoad) {
      NextDualLoad(&job);
    } else {
      // Draw order per job: inter-arrival gap (not for the first job, which arrives at
      // 0, as in Gavel's and Blox's generators, nor in a static trace), then the job's shape.
      if (next_id_ > 0 && !static_trace_) now_ += rng_.Exponential(mean_gap_s_);
      job.submit_s = now_;
      if (config_.durations == GeneratorConfig::Durations::kPhilly) {
        const PhillyJob& row = philly_[rng_.Index(philly_.size())];
        job.gpus = row.gpus;
        job.duration_s = row.duration_s;
      } else if (config_.durations == GeneratorConfig::Durations::kGavel) {
        status_ = DrawGavelJob(rng_, gavel_, config_.gavel_multi_gpu, &job);
        if (!status_.ok()) return false;
      } else {
        job.gpus = config_.durations == GeneratorConfig::Durations::kBloxPhilly ? 1 : BloxGpus(rng_);
        job.duration_s = BloxDurationSeconds(rng_);
      }
      if (config_.max_gpus > job.gpus) job.max_gpus = config_.max_gpus;
    }
    ++next_id_;
    *out = std::move(job);
    return true;
  }

  Status status() const override { return status_; }

 private:
  // Blox's dual load: both streams merged in time order (a base job first on a tie);
  // every job 1 GPU.
  void NextDualLoad(JobSpec* job) {
    job->gpus = 1;
    if (base_at_ <= burst_at_) {
      job->submit_s = base_at_;
      job->duration_s = base_duration_;
      base_at_ += rng_.Exponential(mean_gap_s_);
      base_duration_ = rng_.Uniform(kBaseMinS, kBaseMaxS);
    } else {
      job->submit_s = burst_at_;
      job->duration_s = burst_duration_;
      burst_clock_ += burst_.Exponential(mean_gap_s_ / kBurstRateFactor);
      burst_at_ = BurstClockToTime(burst_clock_);
      burst_duration_ = burst_.Uniform(kBurstMinS, kBurstMaxS);
    }
  }

  const GeneratorConfig config_;
  const std::vector<PhillyJob> philly_;
  const GavelJobTypes gavel_;
  PortableRng rng_;    // The only stream; the base stream of the dual load.
  PortableRng burst_;  // The dual load's burst stream.
  const bool static_trace_;
  const double mean_gap_s_;
  int64_t next_id_ = 0;
  double now_ = 0;
  double base_at_ = 0, base_duration_ = 0, burst_clock_ = 0, burst_at_ = 0, burst_duration_ = 0;
  Status status_ = Status::Ok();
};

// The checks and data files every generator needs; the stream, or why not.
Result<std::unique_ptr<GeneratedJobs>> MakeGenerator(const GeneratorConfig& config) {
  if (config.num_jobs < 0) {
    return Status::InvalidArgument("generator: the number of jobs must be >= 0, got " +
                                   std::to_string(config.num_jobs));
  }
  if (config.max_gpus < 0) {
    return Status::InvalidArgument("generator: max_gpus must be >= 0 (0 = rigid jobs), got " +
                                   std::to_string(config.max_gpus));
  }
  if (!IsStaticTrace(config) &&
      (!(config.jobs_per_hour > 0) || !std::isfinite(config.jobs_per_hour))) {
    return Status::InvalidArgument(
        "generator: jobs_per_hour must be a positive number (or 0: every job at time 0, not "
        "with dual-load durations), got " + workload::FormatDouble(config.jobs_per_hour));
  }
  std::vector<PhillyJob> philly;
  if (config.durations == GeneratorConfig::Durations::kPhilly) {
    if (config.philly_distribution_path.empty()) {
      return Status::InvalidArgument(
          "generator: Philly durations need philly_distribution_path (e.g. "
          "<data dir>/gavel/philly_job_distribution.csv)");
    }
    auto loaded = LoadPhillyDistribution(config.philly_distribution_path);
    if (!loaded.ok()) return loaded.status();
    philly = std::move(loaded).value();
  }
  GavelJobTypes gavel;
  if (config.durations == GeneratorConfig::Durations::kGavel) {
    auto loaded = LoadGavelJobTypes(config.gavel_throughputs_path, config.gavel_multi_gpu);
    if (!loaded.ok()) return loaded.status();
    gavel = std::move(loaded).value();
  }
  return std::make_unique<GeneratedJobs>(config, std::move(philly), std::move(gavel));
}

}  // namespace

Result<std::unique_ptr<JobSource>> GenerateJobs(const GeneratorConfig& config) {
  auto generator = MakeGenerator(config);
  if (!generator.ok()) return generator.status();
  return std::unique_ptr<JobSource>(std::move(generator).value());
}

Result<Trace> GenerateTrace(const GeneratorConfig& config) {
  if (config.num_jobs < 0 || config.num_jobs > GeneratorConfig::kMaxJobs) {
    return Status::InvalidArgument(
        "generator: the number of jobs must be in 0.." + std::to_string(GeneratorConfig::kMaxJobs) +
        " (the trace is built in memory), got " + std::to_string(config.num_jobs));
  }
  auto generator = MakeGenerator(config);
  if (!generator.ok()) return generator.status();
  Trace trace;
  trace.source = std::string("generated(durations=") + GeneratorDurationsName(config) +
                 ", jobs=" + std::to_string(config.num_jobs) +
                 ", jobs_per_hour=" + workload::FormatDouble(config.jobs_per_hour) +
                 ", seed=" + std::to_string(config.seed) +
                 (config.max_gpus > 0 ? ", max_gpus=" + std::to_string(config.max_gpus) : "") + ")";
  trace.jobs.reserve(static_cast<size_t>(config.num_jobs));
  JobSpec job;
  while ((*generator)->Next(&job)) trace.jobs.push_back(std::move(job));
  SCHEDKIT_RETURN_IF_ERROR((*generator)->status());
  return trace;
}

}  // namespace schedkit
