// `schedkit predict train|explain|estimate|forecast`: the interpretable predictors of
// include/schedkit/predict.h. Contract: docs/cli.md and docs/predict.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "predict/civil_time.h"
#include "schedkit/predict.h"
#include "schedkit/trace.h"
#include "workload/csv.h"

namespace schedkit::cli {

namespace {

using workload::FormatDouble;

// Lucid/Helios logs are read whole unless a window is given: a predictor wants the
// history before the simulated weeks.
struct TraceArgs {
  std::string path, format = "auto", window_begin, window_end;
};

void AddTraceFlags(CLI::App* c, TraceArgs* t, const std::string& help) {
  c->add_option("--trace", t->path, help);
  c->add_option("--format", t->format, "trace format (auto, native, lucid, ...)");
  c->add_option("--window-begin", t->window_begin,
                "lucid logs: keep jobs from this time on (default: the whole log)");
  c->add_option("--window-end", t->window_end, "lucid logs: keep jobs up to this time");
}

struct TrainArgs {
  TraceArgs trace;
  std::string target = "duration", history, out, train_until;
  DurationEstimatorOptions duration;
  int horizon_bins = 6;
};

struct ExplainArgs {
  std::string model, csv;
  int top = 12;
};

struct EstimateArgs {
  TraceArgs trace;
  std::string model, out, rolling_from;
  double rolling_days = 0;  // > 0: rolling estimates, no --model.
  DurationEstimatorOptions options;
};

struct ForecastArgs {
  TraceArgs trace;
  std::string model, history, out, from;
};

// "YYYY-MM-DD HH:MM:SS" (UTC) or Unix seconds.
Result<double> ParseTime(const std::string& flag, const std::string& text) {
  int64_t t;
  if (ParseDateTimeUtc(text, &t)) return static_cast<double>(t);
  double v;
  if (workload::ParseFiniteDouble(text, &v)) return v;
  return Status::InvalidArgument(flag + " '" + text +
                                 "': expected \"YYYY-MM-DD HH:MM:SS\" (UTC) or Unix seconds");
}

std::string TimeText(double t) {
  return std::isfinite(t) ? predict::FormatDateTime(static_cast<int64_t>(std::floor(t)))
                          : std::string("(none)");
}

Result<Trace> ReadTrace(const TraceArgs& a) {
  auto format = ParseTraceFormat(a.format);
  if (!format.ok()) return format.status();
  TraceOptions options;
  options.format = *format;
  options.window_begin = a.window_begin;
  options.window_end = a.window_end;
  return LoadTrace(a.path, options);
}

std::string Ratio(double model, double baseline) {
  if (!(baseline > 0) || std::isnan(model)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%.3fx)", model / baseline);
  return buf;
}

void PrintEvaluation(const Evaluation& e, const char* unit) {
  std::printf("%s: trained on %lld rows, evaluated on %lld later rows\n", e.target.c_str(),
              static_cast<long long>(e.train_rows), static_cast<long long>(e.test_rows));
  if (e.test_rows == 0) {
    std::printf("  no evaluation rows (the whole input was training data)\n");
    return;
  }
  std::printf("  MAE model             %.3f %s\n", e.mae_model, unit);
  std::printf("  MAE training mean     %.3f %s%s  (predicts %.3f)\n", e.mae_mean, unit,
              Ratio(e.mae_model, e.mae_mean).c_str(), e.train_mean);
  std::printf("  MAE training median   %.3f %s%s  (predicts %.3f)\n", e.mae_median, unit,
              Ratio(e.mae_model, e.mae_median).c_str(), e.train_median);
  if (!std::isnan(e.mae_last)) {
    std::printf("  MAE last visible bin  %.3f %s%s\n", e.mae_last, unit,
                Ratio(e.mae_model, e.mae_last).c_str());
  }
}

int TrainDuration(const TrainArgs& a, const PredictorTraining& training) {
  if (a.trace.path.empty()) return Fail("predict train --target duration needs --trace");
  auto trace = ReadTrace(a.trace);
  if (!trace.ok()) return Fail(trace.status().message());
  DurationEstimatorOptions options = a.duration;
  options.training = training;
  auto model = DurationEstimator::Train(*trace, options);
  if (!model.ok()) return Fail(model.status().message());
  Status st = model->Save(a.out);
  if (!st.ok()) return Fail(st.message());
  std::printf("duration model: %zu jobs from %s, training jobs submitted up to %s\n",
              trace->jobs.size(), a.trace.path.c_str(), TimeText(model->train_cut()).c_str());
  PrintEvaluation(model->evaluation(), "s");
  std::printf("wrote %s\n", a.out.c_str());
  return 0;
}

Result<ThroughputHistory> ReadHistory(const std::string& history, const TraceArgs& trace) {
  if (history.empty() == trace.path.empty()) {
    return Status::InvalidArgument(
        "give --history (cluster_throughput.csv) or --trace (a job log)");
  }
  if (!history.empty()) return LoadThroughputHistory(history);
  auto t = ReadTrace(trace);
  if (!t.ok()) return t.status();
  if (t->jobs.empty()) return Status::InvalidArgument(trace.path + ": no jobs");
  return ThroughputFromJobs(t->jobs, static_cast<double>(t->epoch_unix_s));
}

int TrainThroughput(const TrainArgs& a, const PredictorTraining& training) {
  auto history = ReadHistory(a.history, a.trace);
  if (!history.ok()) return Fail(history.status().message());
  ThroughputForecasterOptions options;
  options.training = training;
  options.horizon_bins = a.horizon_bins;
  auto model = ThroughputForecaster::Train(*history, options);
  if (!model.ok()) return Fail(model.status().message());
  Status st = model->Save(a.out);
  if (!st.ok()) return Fail(st.message());
  std::printf("throughput model: %zu bins from %s, training bins before %s, horizon %d bins\n",
              history->gpu_jobs.size(), TimeText(static_cast<double>(history->start)).c_str(),
              TimeText(model->train_cut()).c_str(), model->horizon_bins());
  for (const Evaluation& e : model->evaluations()) {
    PrintEvaluation(e, e.target == "submit_gpu_job" ? "jobs/bin" : "GPUs/bin");
  }
  std::printf("wrote %s\n", a.out.c_str());
  return 0;
}

int Train(const TrainArgs& a, const PredictorTraining& base) {
  PredictorTraining training = base;
  if (!a.train_until.empty()) {
    auto t = ParseTime("--train-until", a.train_until);
    if (!t.ok()) return Fail(t.status().message());
    training.train_until = *t;
  }
  if (a.target == "duration") return TrainDuration(a, training);
  if (a.target == "throughput") return TrainThroughput(a, training);
  return Fail("--target '" + a.target + "': expected duration or throughput");
}

// The curve's points to print: all of a numeric curve (at most 64 probes); for a
// categorical curve longer than `top` + 1, the `top` largest |contribution| (ties in
// category order) and "(other)".
std::vector<const ShapePoint*> PointsToPrint(const FeatureShape& f, int top) {
  std::vector<const ShapePoint*> all;
  for (const ShapePoint& p : f.points) all.push_back(&p);
  if (f.kind != "categorical" || static_cast<int>(all.size()) <= top + 1 || top <= 0) return all;
  const ShapePoint* other = all.back();
  all.pop_back();
  std::stable_sort(all.begin(), all.end(), [](const ShapePoint* a, const ShapePoint* b) {
    return std::fabs(a->contribution) > std::fabs(b->contribution);
  });
  all.resize(top);
  all.push_back(other);
  return all;
}

void PrintExplanation(const Explanation& e, int top) {
  const bool log = e.scale == "log1p";
  std::printf("\n== %s ==\n", e.target.c_str());
  if (log) {
    std::printf("prediction = expm1(bias + sum of contributions); bias %.4f (%.1f alone)\n", e.bias,
                std::expm1(e.bias));
    std::printf("a contribution c multiplies (1 + prediction) by exp(c), shown as 'factor'\n");
  } else {
    std::printf("prediction = bias + sum of contributions; bias %.4f\n", e.bias);
  }
  std::printf("\nfeature importance (mean |contribution| over training rows)\n");
  std::string flat;
  for (const FeatureShape& f : e.features) {
    if (f.importance > 0) {
      std::printf("  %-22s %-11s %.4f\n", f.name.c_str(), f.kind.c_str(), f.importance);
    } else {
      flat += (flat.empty() ? "" : ", ") + f.name;
    }
  }
  if (!flat.empty()) std::printf("  never split on (flat curves): %s\n", flat.c_str());
  for (const FeatureShape& f : e.features) {
    if (f.importance == 0) continue;  // Never split on: a flat curve.
    double widest = 0;
    for (const ShapePoint& p : f.points) widest = std::max(widest, std::fabs(p.contribution));
    const std::vector<const ShapePoint*> points = PointsToPrint(f, top);
    std::printf("\n%s (%s, importance %.4f)%s\n", f.name.c_str(), f.kind.c_str(), f.importance,
                points.size() < f.points.size()
                    ? (" showing " + std::to_string(points.size()) + " of " +
                       std::to_string(f.points.size()) + " values")
                          .c_str()
                    : "");
    std::printf("  %-20s %9s %13s%s\n", "value", "rows", "contribution", log ? "   factor" : "");
    for (const ShapePoint* p : points) {
      const int bar =
          widest > 0 ? static_cast<int>(std::lround(20 * std::fabs(p->contribution) / widest)) : 0;
      std::string factor;
      if (log) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "   x%-6.3f", std::exp(p->contribution));
        factor = buf;
      }
      std::printf("  %-20s %9lld %+13.4f%s  %c%s\n", p->value.c_str(),
                  static_cast<long long>(p->train_rows), p->contribution, factor.c_str(),
                  p->contribution < 0 ? '-' : '+', std::string(bar, '#').c_str());
    }
  }
}

Status WriteExplanationCsv(const std::string& kind, const std::vector<Explanation>& all,
                           const std::string& path) {
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot write");
  out << "model,target,scale,bias,feature,kind,importance,value,train_rows,contribution\n";
  for (const Explanation& e : all) {
    for (const FeatureShape& f : e.features) {
      for (const ShapePoint& p : f.points) {
        out << kind << ',' << e.target << ',' << e.scale << ',' << FormatDouble(e.bias) << ','
            << workload::CsvField(f.name) << ',' << f.kind << ',' << FormatDouble(f.importance)
            << ',' << workload::CsvField(p.value) << ',' << p.train_rows << ','
            << FormatDouble(p.contribution) << '\n';
      }
    }
  }
  out.close();
  if (!out) return Status::IoError(path + ": write failed");
  return Status::Ok();
}

int Explain(const ExplainArgs& a) {
  auto kind = PredictorKind(a.model);
  if (!kind.ok()) return Fail(kind.status().message());
  std::vector<Explanation> explanations;
  if (*kind == "duration") {
    auto m = DurationEstimator::Load(a.model);
    if (!m.ok()) return Fail(m.status().message());
    std::printf("duration model %s: training jobs submitted up to %s\n", a.model.c_str(),
                TimeText(m->train_cut()).c_str());
    PrintEvaluation(m->evaluation(), "s");
    auto e = m->Explain();
    if (!e.ok()) return Fail(e.status().message());
    explanations.push_back(std::move(*e));
  } else {
    auto m = ThroughputForecaster::Load(a.model);
    if (!m.ok()) return Fail(m.status().message());
    std::printf("throughput model %s: training bins before %s, horizon %d bins\n", a.model.c_str(),
                TimeText(m->train_cut()).c_str(), m->horizon_bins());
    for (const Evaluation& e : m->evaluations()) {
      PrintEvaluation(e, e.target == "submit_gpu_job" ? "jobs/bin" : "GPUs/bin");
    }
    auto e = m->Explain();
    if (!e.ok()) return Fail(e.status().message());
    explanations = std::move(*e);
  }
  for (const Explanation& e : explanations) PrintExplanation(e, a.top);
  if (!a.csv.empty()) {
    Status st = WriteExplanationCsv(*kind, explanations, a.csv);
    if (!st.ok()) return Fail(st.message());
    std::printf("\nwrote %s\n", a.csv.c_str());
  }
  return 0;
}

// Lucid's weekly-updated scheme: a fresh model per period, trained on everything before it.
int RollingEstimate(const EstimateArgs& a) {
  if (!a.model.empty()) return Fail("predict estimate: give --model or --rolling-days, not both");
  if (a.rolling_from.empty()) return Fail("predict estimate --rolling-days needs --rolling-from");
  if (!(a.rolling_days > 0)) return Fail("--rolling-days must be > 0");
  auto from = ParseTime("--rolling-from", a.rolling_from);
  if (!from.ok()) return Fail(from.status().message());
  auto trace = ReadTrace(a.trace);
  if (!trace.ok()) return Fail(trace.status().message());
  int64_t in_sample = 0;
  auto estimates = RollingEstimates(*trace, a.options, *from, a.rolling_days * 86400, &in_sample);
  if (!estimates.ok()) return Fail(estimates.status().message());
  Status st = WriteEstimatesCsv(*trace, *estimates, a.out);
  if (!st.ok()) return Fail(st.message());
  std::printf("wrote %zu estimates to %s (a model per %s-day period from %s)\n", estimates->size(),
              a.out.c_str(), FormatDouble(a.rolling_days).c_str(), TimeText(*from).c_str());
  if (in_sample > 0) {
    std::printf("note: %lld jobs before %s have in-sample estimates (the first model's)\n",
                static_cast<long long>(in_sample), TimeText(*from).c_str());
  }
  return 0;
}

int Estimate(const EstimateArgs& a) {
  if (a.trace.path.empty()) return Fail("predict estimate needs --trace");
  if (a.rolling_days != 0 || !a.rolling_from.empty()) return RollingEstimate(a);
  if (a.model.empty()) return Fail("predict estimate needs --model (or --rolling-days)");
  auto model = DurationEstimator::Load(a.model);
  if (!model.ok()) return Fail(model.status().message());
  auto trace = ReadTrace(a.trace);
  if (!trace.ok()) return Fail(trace.status().message());
  auto estimates = model->Estimate(*trace);
  if (!estimates.ok()) return Fail(estimates.status().message());
  Status st = WriteEstimatesCsv(*trace, *estimates, a.out);
  if (!st.ok()) return Fail(st.message());
  size_t seen = 0;
  for (const JobSpec& j : trace->jobs) {
    seen += static_cast<double>(trace->epoch_unix_s) + j.submit_s <= model->train_cut();
  }
  std::printf("wrote %zu estimates to %s\n", estimates->size(), a.out.c_str());
  if (seen > 0) {
    std::printf(
        "note: %zu jobs were submitted at or before the model's training cut (%s); their "
        "estimates may be in-sample\n",
        seen, TimeText(model->train_cut()).c_str());
  }
  return 0;
}

int Forecast(const ForecastArgs& a) {
  auto model = ThroughputForecaster::Load(a.model);
  if (!model.ok()) return Fail(model.status().message());
  auto history = ReadHistory(a.history, a.trace);
  if (!history.ok()) return Fail(history.status().message());
  double from = model->train_cut();
  if (!a.from.empty()) {
    auto t = ParseTime("--from", a.from);
    if (!t.ok()) return Fail(t.status().message());
    from = *t;
  }
  auto rows = model->Forecast(*history, from);
  if (!rows.ok()) return Fail(rows.status().message());
  Status st = WriteThroughputForecastCsv(*rows, a.out);
  if (!st.ok()) return Fail(st.message());
  std::printf("wrote %zu forecast rows (%s .. %s) to %s\n", rows->size(),
              rows->empty() ? "-" : TimeText(static_cast<double>(rows->front().time)).c_str(),
              rows->empty() ? "-" : TimeText(static_cast<double>(rows->back().time)).c_str(),
              a.out.c_str());
  if (from < model->train_cut()) {
    std::printf("note: rows before %s were training rows of the model (in-sample)\n",
                TimeText(model->train_cut()).c_str());
  }
  return 0;
}

void AddTrainingFlags(CLI::App* c, PredictorTraining* t) {
  c->add_option("--rounds", t->rounds, "boosting rounds (depth-1 trees)");
  c->add_option("--learning-rate", t->learning_rate, "shrinkage per round");
  c->add_option("--min-child-weight", t->min_child_weight, "fewest training rows per leaf");
  c->add_option("--lambda", t->lambda, "L2 penalty on leaf values");
  c->add_option("--train-fraction", t->train_fraction,
                "train on this first fraction of rows in time order, evaluate on the rest");
  c->add_option("--seed", t->seed, "XGBoost seed");
}

}  // namespace

void AddPredictCommands(CLI::App& app, std::vector<Subcommand>& out) {
  CLI::App* predict = app.add_subcommand(
      "predict", "Interpretable duration and throughput predictors (docs/predict.md)");
  predict->require_subcommand(1);

  auto train = std::make_shared<TrainArgs>();
  auto training = std::make_shared<PredictorTraining>();
  CLI::App* t =
      predict->add_subcommand("train", "Fit a predictor on a time prefix, evaluate on the rest");
  t->add_option("--target", train->target, "duration (job-duration estimator) or throughput");
  AddTraceFlags(t, &train->trace, "job log (duration; or throughput counted from it)");
  t->add_option("--history", train->history, "throughput: cluster_throughput.csv-style history");
  t->add_option("--out", train->out, "model file to write")->required();
  t->add_option("--train-until", train->train_until,
                "train on rows before this time (\"YYYY-MM-DD HH:MM:SS\" UTC or Unix seconds)");
  t->add_option("--name-tokens", train->duration.max_name_tokens,
                "duration: job-name tokens kept as features");
  t->add_option("--min-count", train->duration.min_category_count,
                "duration: rarer users/VCs/names/tokens are '(other)'");
  t->add_option("--horizon", train->horizon_bins, "throughput: bins between data and forecast");
  AddTrainingFlags(t, training.get());
  out.push_back({t, [train, training] { return Train(*train, *training); }});

  auto explain = std::make_shared<ExplainArgs>();
  CLI::App* e = predict->add_subcommand("explain", "Print a model's error and per-feature curves");
  e->add_option("--model", explain->model, "model file")->required();
  e->add_option("--csv", explain->csv, "also write every curve point to this CSV");
  e->add_option("--top", explain->top,
                "categories printed per categorical curve, largest effects first (CSV has all)");
  out.push_back({e, [explain] { return Explain(*explain); }});

  auto estimate = std::make_shared<EstimateArgs>();
  CLI::App* s = predict->add_subcommand("estimate", "Write job_id,estimate_s for a job log");
  s->add_option("--model", estimate->model, "duration model file");
  AddTraceFlags(s, &estimate->trace, "job log");
  s->add_option("--out", estimate->out, "estimates CSV to write")->required();
  s->add_option("--rolling-days", estimate->rolling_days,
                "instead of --model: retrain every this many days on all earlier jobs");
  s->add_option("--rolling-from", estimate->rolling_from, "start of the first rolling period");
  s->add_option("--name-tokens", estimate->options.max_name_tokens, "rolling: as for train");
  s->add_option("--min-count", estimate->options.min_category_count, "rolling: as for train");
  AddTrainingFlags(s, &estimate->options.training);
  out.push_back({s, [estimate] { return Estimate(*estimate); }});

  auto forecast = std::make_shared<ForecastArgs>();
  CLI::App* f = predict->add_subcommand(
      "forecast", "Write a throughput forecast in Venus_throughput_pred.csv's format");
  f->add_option("--model", forecast->model, "throughput model file")->required();
  f->add_option("--history", forecast->history, "cluster_throughput.csv-style history");
  AddTraceFlags(f, &forecast->trace, "or a job log, counted into 10-minute bins");
  f->add_option("--out", forecast->out, "forecast CSV to write")->required();
  f->add_option("--from", forecast->from, "first bin to write (default: the model's training cut)");
  out.push_back({f, [forecast] { return Forecast(*forecast); }});
}

}  // namespace schedkit::cli
