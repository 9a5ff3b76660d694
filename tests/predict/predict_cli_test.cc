// `schedkit predict` end to end: train on a generated Lucid-format log, write estimates,
// and run Lucid's QSSF with them (`simulate --compat lucid --opt estimates=FILE`); train
// a throughput forecaster and run Lucid's packing switch on its forecast; explain's
// output and the error contract.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "predict_test_util.h"
#include "schedkit/predict.h"
#include "cli_runner.h"
#include "test_files.h"
#include "workload/csv.h"

namespace schedkit {
namespace {

using testing::Lines;
using testing::ReadFile;

using schedkit::testing::Outcome;
using schedkit::testing::RunCli;

class PredictCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/predict_cli_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Three one-node VCs (8 GPUs each): busy enough that the order of the queue matters.
  std::string WriteVcs() const {
    std::ofstream(Path("vcs.csv")) << ",num\nvcA,1\nvcB,1\nvcC,1\n";
    return Path("vcs.csv");
  }

  std::string dir_;
};

double AvgJct(const std::string& jobs_csv, size_t* rows) {
  const std::vector<std::string> lines = Lines(ReadFile(jobs_csv));
  *rows = lines.empty() ? 0 : lines.size() - 1;
  auto r = workload::CsvReader::FromString(jobs_csv, ReadFile(jobs_csv));
  EXPECT_TRUE(r->ReadHeader().ok());
  int col = r->ColumnIndex("jct_s");
  double sum = 0;
  int64_t n = 0;
  while (r->Next()) {
    double v;
    EXPECT_TRUE(r->ReadDouble(col, &v).ok());
    sum += v;
    ++n;
  }
  return n > 0 ? sum / n : std::nan("");
}

TEST_F(PredictCliTest, TrainedEstimatesDriveQssfOnUnseenJobs) {
  // 1500 jobs from 2020-09-01; the model trains on the first 60 % and QSSF runs on the
  // other 40 % only, so no simulated job was seen in training.
  const Trace log = testing::MakeJobLog(1500);
  ASSERT_TRUE(testing::WriteLucidLog(log, 0, log.jobs.size(), Path("log.csv")));
  ASSERT_TRUE(testing::WriteLucidLog(log, 900, log.jobs.size(), Path("later.csv")));
  ASSERT_TRUE(testing::WriteLucidLog(log, 900, log.jobs.size(), Path("later_sim.csv"), true));
  Outcome train = RunCli("predict train --trace " + Path("log.csv") +
                         " --train-fraction 0.6 --rounds 150 --out " + Path("model.json"));
  ASSERT_EQ(train.exit_code, 0) << train.output;
  EXPECT_NE(train.output.find("trained on 900 rows, evaluated on 600 later rows"),
            std::string::npos)
      << train.output;
  Outcome est = RunCli("predict estimate --model " + Path("model.json") + " --trace " +
                       Path("later.csv") + " --out " + Path("est.csv"));
  ASSERT_EQ(est.exit_code, 0) << est.output;
  EXPECT_EQ(est.output.find("in-sample"), std::string::npos) << est.output;
  const std::vector<std::string> lines = Lines(ReadFile(Path("est.csv")));
  ASSERT_EQ(lines.size(), 601u);
  EXPECT_EQ(lines[0], "job_id,estimate_s");
  EXPECT_EQ(lines[1].substr(0, 4), "901,");

  // The same jobs with an uninformative estimate (every job alike): QSSF then orders by
  // GPUs alone. Good estimates must shorten the average JCT.
  {
    std::ofstream flat(Path("flat.csv"));
    flat << "job_id,estimate_s\n";
    for (size_t i = 900; i < log.jobs.size(); ++i) flat << log.jobs[i].id << ",1000\n";
  }
  const std::string sim = "simulate --compat lucid --policy qssf --trace " + Path("later_sim.csv") +
                          " --opt vc_config=" + WriteVcs();
  Outcome model_run = RunCli(sim + " --opt estimates=" + Path("est.csv") + " --out " + Path("qm"));
  ASSERT_EQ(model_run.exit_code, 0) << model_run.output;
  Outcome flat_run = RunCli(sim + " --opt estimates=" + Path("flat.csv") + " --out " + Path("qf"));
  ASSERT_EQ(flat_run.exit_code, 0) << flat_run.output;
  size_t rows_model = 0, rows_flat = 0;
  const double jct_model = AvgJct(Path("qm/jobs.csv"), &rows_model);
  const double jct_flat = AvgJct(Path("qf/jobs.csv"), &rows_flat);
  EXPECT_EQ(rows_model, 600u);
  EXPECT_EQ(rows_flat, 600u);
  EXPECT_LT(jct_model, 0.9 * jct_flat) << "model " << jct_model << " flat " << jct_flat;

  // The clean model's qssf policy reads the same file.
  Outcome clean =
      RunCli("simulate --policy qssf --trace " + Path("later_sim.csv") + " --vc-config " +
             WriteVcs() + " --opt estimates=" + Path("est.csv") + " --out " + Path("qc"));
  ASSERT_EQ(clean.exit_code, 0) << clean.output;
  const std::vector<std::string> vcs = Lines(ReadFile(Path("qc/vcs.csv")));
  ASSERT_FALSE(vcs.empty()) << clean.output;
  size_t clean_rows = 0;
  for (const char* vc : {"vcA", "vcB", "vcC"}) {
    size_t n = 0;
    EXPECT_GT(AvgJct(Path(std::string("qc/") + vc + "/jobs.csv"), &n), 0) << vc;
    clean_rows += n;
  }
  EXPECT_EQ(clean_rows, 600u);

  // Rolling estimates for the whole log (a model per day, each trained on the days
  // before it) also drive QSSF, with only the first two days in-sample.
  Outcome roll =
      RunCli("predict estimate --trace " + Path("log.csv") +
             " --rolling-days 1 --rolling-from '2020-09-03 00:00:00' --rounds 100 --out " +
             Path("roll.csv"));
  ASSERT_EQ(roll.exit_code, 0) << roll.output;
  EXPECT_NE(roll.output.find("wrote 1500 estimates"), std::string::npos) << roll.output;
  EXPECT_NE(roll.output.find("jobs before 2020-09-03 00:00:00 have in-sample estimates"),
            std::string::npos)
      << roll.output;
  ASSERT_TRUE(testing::WriteLucidLog(log, 0, log.jobs.size(), Path("all_sim.csv"), true));
  Outcome roll_run = RunCli("simulate --compat lucid --policy qssf --trace " + Path("all_sim.csv") +
                            " --opt vc_config=" + WriteVcs() +
                            " --opt estimates=" + Path("roll.csv") + " --out " + Path("qr"));
  ASSERT_EQ(roll_run.exit_code, 0) << roll_run.output;
  size_t rows_roll = 0;
  EXPECT_GT(AvgJct(Path("qr/jobs.csv"), &rows_roll), 0);
  EXPECT_EQ(rows_roll, 1500u);
  Outcome both =
      RunCli("predict estimate --trace " + Path("log.csv") + " --model " + Path("model.json") +
             " --rolling-days 1 --rolling-from 0 --out " + Path("x.csv"));
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_EQ(both.output, "schedkit: predict estimate: give --model or --rolling-days, not both\n");
}

TEST_F(PredictCliTest, ExplainPrintsCurvesAndWritesEveryPoint) {
  const Trace log = testing::MakeJobLog(600);
  ASSERT_TRUE(testing::WriteLucidLog(log, 0, log.jobs.size(), Path("log.csv")));
  ASSERT_EQ(
      RunCli("predict train --trace " + Path("log.csv") + " --rounds 100 --out " + Path("m.json"))
          .exit_code,
      0);
  Outcome e = RunCli("predict explain --model " + Path("m.json") + " --csv " + Path("curves.csv"));
  ASSERT_EQ(e.exit_code, 0) << e.output;
  EXPECT_NE(e.output.find("MAE training median"), std::string::npos);
  EXPECT_NE(e.output.find("\nuser (categorical, importance "), std::string::npos) << e.output;
  EXPECT_NE(e.output.find("  u11 "), std::string::npos);
  const std::vector<std::string> lines = Lines(ReadFile(Path("curves.csv")));
  ASSERT_GT(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "model,target,scale,bias,feature,kind,importance,value,train_rows,contribution");
  // Every point of every curve: the user curve has u00..u11 and (other).
  int user_rows = 0;
  for (const std::string& l : lines) user_rows += l.find(",user,categorical,") != std::string::npos;
  EXPECT_EQ(user_rows, 13);
}

TEST_F(PredictCliTest, ForecastFeedsLucidsPackingSwitch) {
  const Trace log = testing::MakeJobLog(1500);
  ASSERT_TRUE(testing::WriteLucidLog(log, 0, log.jobs.size(), Path("log.csv")));
  Outcome train = RunCli("predict train --target throughput --trace " + Path("log.csv") +
                         " --train-fraction 0.6 --rounds 50 --out " + Path("tp.json"));
  ASSERT_EQ(train.exit_code, 0) << train.output;
  EXPECT_NE(train.output.find("submit_gpu_num: trained on"), std::string::npos);
  // The file must start at the simulation's t = 0 (2020-09-01 00:00:00 here).
  Outcome fc = RunCli("predict forecast --model " + Path("tp.json") + " --trace " +
                      Path("log.csv") + " --from '2020-09-01 00:00:00' --out " + Path("pred.csv"));
  ASSERT_EQ(fc.exit_code, 0) << fc.output;
  EXPECT_NE(fc.output.find("in-sample"), std::string::npos);  // Says so: rows before the cut.
  const std::vector<std::string> lines = Lines(ReadFile(Path("pred.csv")));
  ASSERT_GT(lines.size(), 2u);
  EXPECT_EQ(lines[0], "time,submit_gpu_job,submit_gpu_num,pred_gpu_job,pred_gpu_num");
  EXPECT_EQ(lines[1].substr(0, 20), "2020-09-01 00:00:00,");
  auto back = LoadThroughputHistory(Path("pred.csv"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  double jobs = 0;
  for (double v : back->gpu_jobs) jobs += v;
  EXPECT_EQ(jobs, 1500);
  // Lucid with our estimates and our forecast runs end to end.
  ASSERT_TRUE(testing::WriteLucidLog(log, 0, log.jobs.size(), Path("sim.csv"), true));
  ASSERT_EQ(RunCli("predict train --trace " + Path("log.csv") + " --train-fraction 0.6 --out " +
                   Path("m.json"))
                .exit_code,
            0);
  ASSERT_EQ(RunCli("predict estimate --model " + Path("m.json") + " --trace " + Path("log.csv") +
                   " --out " + Path("est.csv"))
                .exit_code,
            0);
  const std::string lucid_dir = std::string(SCHEDKIT_SHARED_DIR) + "/data/lucid";
  if (!std::filesystem::exists(lucid_dir + "/single_data.csv"))
    GTEST_SKIP() << "no Lucid side data";
  Outcome run = RunCli("simulate --compat lucid --policy lucid --trace " + Path("sim.csv") +
                       " --opt vc_config=" + WriteVcs() + " --opt estimates=" + Path("est.csv") +
                       " --opt forecast=" + Path("pred.csv") + " --opt share_scores=" + lucid_dir +
                       "/single_data.csv --opt colocate=" + lucid_dir +
                       "/colocate_info.csv --opt profiler=false --out " + Path("lucid"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  size_t rows = 0;
  EXPECT_GT(AvgJct(Path("lucid/jobs.csv"), &rows), 0);
  EXPECT_EQ(rows, 1500u);  // The anchor job is outside Lucid's September window.
}

TEST_F(PredictCliTest, BadInputExitsNonZeroWithOneLine) {
  Outcome o = RunCli("predict train --target nonsense --trace x --out " + Path("m.json"));
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output, "schedkit: --target 'nonsense': expected duration or throughput\n");
  o = RunCli("predict train --target throughput --out " + Path("m.json"));
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output, "schedkit: give --history (cluster_throughput.csv) or --trace (a job log)\n");
  std::ofstream(Path("h.csv")) << "time,submit_gpu_job,submit_gpu_num\n2020-09-01 00:00:00,x,1\n";
  o = RunCli("predict train --target throughput --history " + Path("h.csv") + " --out " +
             Path("m.json"));
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output,
            "schedkit: " + Path("h.csv") + ":2: field 'submit_gpu_job': 'x' is not a number\n");
  o = RunCli("predict train --trace x.csv --train-until yesterday --out " + Path("m.json"));
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("--train-until 'yesterday'"), std::string::npos);
  o = RunCli("predict explain --model " + Path("h.csv"));
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.output, "schedkit: " + Path("h.csv") + ": not a JSON predictor model\n");
}

}  // namespace
}  // namespace schedkit
