#include "runtime/store.h"

#include <sqlite3.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "schedkit/cluster.h"
#include "workload/trace_formats.h"

namespace schedkit::runtime {
namespace {

constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  command TEXT NOT NULL, shell INTEGER NOT NULL, gpus INTEGER NOT NULL, cpus INTEGER NOT NULL,
  mem_gb REAL NOT NULL, duration_s REAL NOT NULL, user TEXT NOT NULL, vc TEXT NOT NULL,
  name TEXT NOT NULL, checkpoint_dir TEXT NOT NULL, working_dir TEXT NOT NULL,
  priority INTEGER NOT NULL, submit_time REAL NOT NULL,
  state TEXT NOT NULL, first_start_time REAL NOT NULL, last_start_time REAL NOT NULL,
  finish_time REAL NOT NULL, executed_s REAL NOT NULL, restart_count INTEGER NOT NULL,
  preemptions INTEGER NOT NULL, placement TEXT NOT NULL, backend_id TEXT NOT NULL,
  exit_code INTEGER NOT NULL, message TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, job_id INTEGER NOT NULL, time REAL NOT NULL,
  kind TEXT NOT NULL, state TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_by_job ON events(job_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
)";

// Columns added after the first release, with their declarations: Open adds those an
// older store lacks, so its jobs read as having run alone at full speed with no profile.
constexpr std::pair<const char*, const char*> kAddedColumns[] = {
    {"iteration_time_s", "REAL NOT NULL DEFAULT 0"}, {"stage_data_s", "REAL NOT NULL DEFAULT 0"},
    {"stage_gpu_s", "REAL NOT NULL DEFAULT 0"},      {"stage_net_s", "REAL NOT NULL DEFAULT 0"},
    {"run_group", "INTEGER NOT NULL DEFAULT 0"},     {"group_size", "INTEGER NOT NULL DEFAULT 1"},
    {"rate", "REAL NOT NULL DEFAULT 1"},             {"guest", "INTEGER NOT NULL DEFAULT 0"},
    // -1: an older store's job, whose runs were all at full speed (LoadAll: executed_s).
    {"work_done_s", "REAL NOT NULL DEFAULT -1"},
    {"idempotency_key", "TEXT"},  // NULL = none.
    {"time_limit_s", "REAL NOT NULL DEFAULT 0"},
    {"max_gpus", "INTEGER NOT NULL DEFAULT 0"},  // 0 = rigid.
    {"gpu_milli", "INTEGER NOT NULL DEFAULT 1000"},  // Whole GPUs.
    {"grown_gpu_s", "REAL NOT NULL DEFAULT 0"},
    // The native trace's text ("k80=0.5;v100=1"); '' = the same speed on every type.
    {"type_speeds", "TEXT NOT NULL DEFAULT ''"}};

// After AddMissingColumns: at most one job per idempotency key, whatever the service does.
constexpr const char* kIndexes = R"(
CREATE UNIQUE INDEX IF NOT EXISTS jobs_by_idempotency_key ON jobs(idempotency_key)
  WHERE idempotency_key IS NOT NULL;
)";

// A prepared statement that finalizes itself.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return s_; }
  void Bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void Bind(int i, double v) { sqlite3_bind_double(s_, i, v); }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void Bind(int i, int v) { sqlite3_bind_int64(s_, i, v); }
  std::string Text(int i) {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t == nullptr ? "" : reinterpret_cast<const char*>(t);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_;
};

// Binds the fields that change after submission, from index `first` on; returns the next index.
int BindProgress(Stmt& s, const JobRecord& j, int first) {
  int i = first;
  s.Bind(i++, std::string(RunStateName(j.state)));
  s.Bind(i++, j.first_start_time);
  s.Bind(i++, j.last_start_time);
  s.Bind(i++, j.finish_time);
  s.Bind(i++, j.executed_s);
  s.Bind(i++, j.restart_count);
  s.Bind(i++, j.preemptions);
  s.Bind(i++, j.placement);
  s.Bind(i++, j.backend_id);
  s.Bind(i++, j.exit_code);
  s.Bind(i++, j.message);
  s.Bind(i++, j.group);
  s.Bind(i++, j.group_size);
  s.Bind(i++, j.rate);
  s.Bind(i++, j.guest ? 1 : 0);
  s.Bind(i++, j.work_done_s);
  s.Bind(i++, j.grown_gpu_s);
  return i;
}

// Stores written before the one placement format kept "node:gpu_mask" shares ("0:15;1:3",
// masks in decimal). Returns false if `text` is not such a list.
bool ParseLegacyPlacement(const std::string& text, Placement* out) {
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find(';', start), text.size());
    const std::string share = text.substr(start, end - start);
    const size_t colon = share.find(':');
    auto digits = [](const std::string& t) {
      return !t.empty() && t.size() <= 19 && t.find_first_not_of("0123456789") == std::string::npos;
    };
    if (colon == std::string::npos || !digits(share.substr(0, colon)) ||
        !digits(share.substr(colon + 1)) || colon > 9) {
      return false;
    }
    NodeShare s;
    s.node = std::stoi(share.substr(0, colon));
    s.gpu_mask = std::stoull(share.substr(colon + 1));
    out->shares.push_back(s);
    start = end + 1;
  }
  return true;
}

// The placement text of a stored job: the one format as it is, the legacy one converted.
Result<std::string> PlacementTextOf(const std::string& stored) {
  Result<Placement> parsed = ParsePlacement(stored);
  if (parsed.ok()) return stored;
  Placement legacy;
  if (!ParseLegacyPlacement(stored, &legacy)) return parsed.status();
  return legacy.ToString();
}

}  // namespace

const char* RunStateName(RunState s) {
  switch (s) {
    case RunState::kPending:
      return "PENDING";
    case RunState::kRunning:
      return "RUNNING";
    case RunState::kSucceeded:
      return "SUCCEEDED";
    case RunState::kFailed:
      return "FAILED";
    case RunState::kCancelled:
      return "CANCELLED";
    case RunState::kRejected:
      return "REJECTED";
    case RunState::kTimeout:
      return "TIMEOUT";
  }
  return "?";
}

bool ParseRunState(const std::string& name, RunState* out) {
  for (int s = 1; s <= static_cast<int>(kLastRunState); ++s) {
    if (name == RunStateName(static_cast<RunState>(s))) {
      *out = static_cast<RunState>(s);
      return true;
    }
  }
  return false;
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    std::string msg = path + ": cannot open the store: " + sqlite3_errmsg(db);
    sqlite3_close(db);
    return Status::IoError(msg);
  }
  std::unique_ptr<Store> store(new Store(db, path));
  sqlite3_busy_timeout(db, 5000);
  // WAL + NORMAL: a committed transaction survives a crash of the process (not
  // necessarily of the machine), at a fraction of FULL's fsync cost.
  SCHEDKIT_RETURN_IF_ERROR(store->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  SCHEDKIT_RETURN_IF_ERROR(store->Exec(kSchema));
  SCHEDKIT_RETURN_IF_ERROR(store->AddMissingColumns());
  SCHEDKIT_RETURN_IF_ERROR(store->Exec(kIndexes));
  return store;
}

Store::~Store() { sqlite3_close(db_); }

Status Store::AddMissingColumns() {
  std::set<std::string> have;
  {
    Stmt s(db_, "PRAGMA table_info(jobs)");
    if (!s.ok()) return Error("read the jobs table's columns");
    while (sqlite3_step(s.get()) == SQLITE_ROW) have.insert(s.Text(1));
  }
  for (const auto& [name, declaration] : kAddedColumns) {
    if (have.count(name)) continue;
    SCHEDKIT_RETURN_IF_ERROR(
        Exec(std::string("ALTER TABLE jobs ADD COLUMN ") + name + " " + declaration));
  }
  return Status::Ok();
}

Status Store::Error(const std::string& what) const {
  return Status::IoError(path_ + ": " + what + ": " + sqlite3_errmsg(db_));
}

Status Store::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = path_ + ": " + (err != nullptr ? err : "sqlite error");
    sqlite3_free(err);
    return Status::IoError(msg);
  }
  return Status::Ok();
}

Status Store::Insert(JobRecord* j) {
  std::lock_guard<std::mutex> lock(mu_);
  SCHEDKIT_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Stmt s(
      db_,
      "INSERT INTO jobs (command, shell, gpus, cpus, mem_gb, duration_s, user, vc, name, "
      "checkpoint_dir, working_dir, priority, submit_time, state, first_start_time, "
      "last_start_time, finish_time, executed_s, restart_count, preemptions, placement, "
      "backend_id, exit_code, message, run_group, group_size, rate, guest, work_done_s, "
      "grown_gpu_s, iteration_time_s, stage_data_s, stage_gpu_s, stage_net_s, idempotency_key, "
      "time_limit_s, max_gpus, gpu_milli, type_speeds) "
      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!s.ok()) {
    Exec("ROLLBACK");
    return Error("prepare insert");
  }
  s.Bind(1, nlohmann::json(j->command).dump());
  s.Bind(2, j->shell ? 1 : 0);
  s.Bind(3, j->gpus);
  s.Bind(4, j->cpus);
  s.Bind(5, j->mem_gb);
  s.Bind(6, j->duration_s);
  s.Bind(7, j->user);
  s.Bind(8, j->vc);
  s.Bind(9, j->name);
  s.Bind(10, j->checkpoint_dir);
  s.Bind(11, j->working_dir);
  s.Bind(12, j->priority);
  s.Bind(13, j->submit_time);
  int next = BindProgress(s, *j, 14);
  s.Bind(next++, j->iteration_time_s);
  for (double t : j->stage_times_s) s.Bind(next++, t);
  if (j->idempotency_key.empty()) {
    sqlite3_bind_null(s.get(), next++);
  } else {
    s.Bind(next++, j->idempotency_key);
  }
  s.Bind(next++, j->time_limit_s);
  s.Bind(next++, j->max_gpus);
  s.Bind(next++, j->gpu_milli);
  s.Bind(next++, workload::TypeSpeedsText(j->type_speeds));
  if (sqlite3_step(s.get()) != SQLITE_DONE) {
    Status st = Error("insert job");
    Exec("ROLLBACK");
    return st;
  }
  j->id = sqlite3_last_insert_rowid(db_);
  Stmt e(db_, "INSERT INTO events (job_id, time, kind, state) VALUES (?,?,'submitted',?)");
  e.Bind(1, j->id);
  e.Bind(2, j->submit_time);
  e.Bind(3, std::string(RunStateName(j->state)));
  if (sqlite3_step(e.get()) != SQLITE_DONE) {
    Status st = Error("insert event");
    Exec("ROLLBACK");
    return st;
  }
  return Exec("COMMIT");
}

Status Store::Update(const JobRecord& j, const std::string& kind, double time) {
  std::lock_guard<std::mutex> lock(mu_);
  SCHEDKIT_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
  Stmt s(db_,
         "UPDATE jobs SET state=?, first_start_time=?, last_start_time=?, finish_time=?, "
         "executed_s=?, restart_count=?, preemptions=?, placement=?, backend_id=?, exit_code=?, "
         "message=?, run_group=?, group_size=?, rate=?, guest=?, work_done_s=?, grown_gpu_s=?, "
         "gpus=? WHERE id=?");
  const int next = BindProgress(s, j, 1);
  s.Bind(next, j.gpus);  // Resize changes the request of a running job.
  s.Bind(next + 1, j.id);
  Stmt e(db_, "INSERT INTO events (job_id, time, kind, state) VALUES (?,?,?,?)");
  e.Bind(1, j.id);
  e.Bind(2, time);
  e.Bind(3, kind);
  e.Bind(4, std::string(RunStateName(j.state)));
  if (sqlite3_step(s.get()) != SQLITE_DONE || sqlite3_step(e.get()) != SQLITE_DONE) {
    Status st = Error("update job " + std::to_string(j.id));
    Exec("ROLLBACK");
    return st;
  }
  return Exec("COMMIT");
}

Result<std::vector<JobRecord>> Store::LoadAll() {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_,
         "SELECT id, command, shell, gpus, cpus, mem_gb, duration_s, user, vc, name, "
         "checkpoint_dir, working_dir, priority, submit_time, state, first_start_time, "
         "last_start_time, finish_time, executed_s, restart_count, preemptions, placement, "
         "backend_id, exit_code, message, run_group, group_size, rate, guest, iteration_time_s, "
         "stage_data_s, stage_gpu_s, stage_net_s, work_done_s, idempotency_key, time_limit_s, "
         "max_gpus, gpu_milli, grown_gpu_s, type_speeds FROM jobs "
         "ORDER BY id");
  if (!s.ok()) return Error("prepare load");
  std::vector<JobRecord> jobs;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    JobRecord j;
    sqlite3_stmt* q = s.get();
    j.id = sqlite3_column_int64(q, 0);
    nlohmann::json cmd = nlohmann::json::parse(s.Text(1), nullptr, /*allow_exceptions=*/false);
    if (!cmd.is_array())
      return Status::IoError(path_ + ": job " + std::to_string(j.id) +
                             ": field 'command': not a JSON array");
    for (const auto& a : cmd) j.command.push_back(a.is_string() ? a.get<std::string>() : "");
    j.shell = sqlite3_column_int(q, 2) != 0;
    j.gpus = sqlite3_column_int(q, 3);
    j.cpus = sqlite3_column_int(q, 4);
    j.mem_gb = sqlite3_column_double(q, 5);
    j.duration_s = sqlite3_column_double(q, 6);
    j.user = s.Text(7);
    j.vc = s.Text(8);
    j.name = s.Text(9);
    j.checkpoint_dir = s.Text(10);
    j.working_dir = s.Text(11);
    j.priority = sqlite3_column_int(q, 12);
    j.submit_time = sqlite3_column_double(q, 13);
    if (!ParseRunState(s.Text(14), &j.state)) {
      return Status::IoError(path_ + ": job " + std::to_string(j.id) +
                             ": field 'state': unknown '" + s.Text(14) + "'");
    }
    j.first_start_time = sqlite3_column_double(q, 15);
    j.last_start_time = sqlite3_column_double(q, 16);
    j.finish_time = sqlite3_column_double(q, 17);
    j.executed_s = sqlite3_column_double(q, 18);
    j.restart_count = sqlite3_column_int(q, 19);
    j.preemptions = sqlite3_column_int(q, 20);
    Result<std::string> placement = PlacementTextOf(s.Text(21));
    if (!placement.ok()) {
      return Status::IoError(path_ + ": job " + std::to_string(j.id) + ": field 'placement': " +
                             placement.status().message());
    }
    j.placement = std::move(placement).value();
    j.backend_id = s.Text(22);
    j.exit_code = sqlite3_column_int(q, 23);
    j.message = s.Text(24);
    j.group = sqlite3_column_int64(q, 25);
    j.group_size = sqlite3_column_int(q, 26);
    j.rate = sqlite3_column_double(q, 27);
    j.guest = sqlite3_column_int(q, 28) != 0;
    j.iteration_time_s = sqlite3_column_double(q, 29);
    for (int k = 0; k < 3; ++k) j.stage_times_s[k] = sqlite3_column_double(q, 30 + k);
    const double work_done_s = sqlite3_column_double(q, 33);
    j.work_done_s = work_done_s < 0 ? j.executed_s : work_done_s;
    j.idempotency_key = s.Text(34);
    j.time_limit_s = sqlite3_column_double(q, 35);
    j.max_gpus = sqlite3_column_int(q, 36);
    j.gpu_milli = sqlite3_column_int(q, 37);
    j.grown_gpu_s = sqlite3_column_double(q, 38);
    if (Status st = workload::ParseTypeSpeeds(s.Text(39), &j.type_speeds); !st.ok()) {
      return Status::IoError(path_ + ": job " + std::to_string(j.id) +
                             ": field 'type_speeds': " + st.message());
    }
    jobs.push_back(std::move(j));
  }
  if (rc != SQLITE_DONE) return Error("load jobs");
  return jobs;
}

Result<int64_t> Store::CountJobs() {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_, "SELECT COUNT(*) FROM jobs");
  if (sqlite3_step(s.get()) != SQLITE_ROW) return Error("count jobs");
  return static_cast<int64_t>(sqlite3_column_int64(s.get(), 0));
}

Result<int64_t> Store::CountEvents(JobId job, const std::string& kind) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_, "SELECT COUNT(*) FROM events WHERE job_id=? AND kind=?");
  s.Bind(1, job);
  s.Bind(2, kind);
  if (sqlite3_step(s.get()) != SQLITE_ROW) return Error("count events");
  return static_cast<int64_t>(sqlite3_column_int64(s.get(), 0));
}

Result<std::string> Store::GetMeta(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_, "SELECT value FROM meta WHERE key=?");
  s.Bind(1, key);
  const int rc = sqlite3_step(s.get());
  if (rc == SQLITE_ROW) return s.Text(0);
  if (rc == SQLITE_DONE) return std::string();
  return Error("read meta");
}

Status Store::SetMeta(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(db_, "INSERT OR REPLACE INTO meta (key, value) VALUES (?,?)");
  s.Bind(1, key);
  s.Bind(2, value);
  if (sqlite3_step(s.get()) != SQLITE_DONE) return Error("write meta");
  return Status::Ok();
}

}  // namespace schedkit::runtime
