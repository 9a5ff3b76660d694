// The runtime's durable state: jobs, their current states and every transition as an
// event, in SQLite (WAL). Each write is one transaction, so a SIGKILL of the service
// loses nothing that an RPC reported as done. Thread-safe (one connection, one mutex).
#ifndef SCHEDKIT_RUNTIME_STORE_H_
#define SCHEDKIT_RUNTIME_STORE_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/job_record.h"
#include "schedkit/status.h"

struct sqlite3;

namespace schedkit::runtime {

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const std::string& path);
  ~Store();

  // Inserts `job` (its id is assigned and written back) with a "submitted" event.
  Status Insert(JobRecord* job);
  // Writes the job's mutable fields and appends an event of `kind` at `time`, atomically.
  Status Update(const JobRecord& job, const std::string& kind, double time);
  Result<std::vector<JobRecord>> LoadAll();
  Result<int64_t> CountJobs();
  Result<int64_t> CountEvents(JobId job, const std::string& kind);
  // A value kept across restarts (e.g. the service's time origin); empty if unset.
  Result<std::string> GetMeta(const std::string& key);
  Status SetMeta(const std::string& key, const std::string& value);

 private:
  explicit Store(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Exec(const std::string& sql);
  Status AddMissingColumns();
  Status Error(const std::string& what) const;

  sqlite3* db_;
  std::string path_;
  std::mutex mu_;
};

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_STORE_H_
