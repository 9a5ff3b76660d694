// The bearer token: comparison in time independent of where the strings differ, and the
// checks the service and every client make on the token file they read.
#ifndef SCHEDKIT_RUNTIME_AUTH_H_
#define SCHEDKIT_RUNTIME_AUTH_H_

#include <sys/stat.h>

#include <cstdio>
#include <random>
#include <string>

#include "schedkit/status.h"

namespace schedkit::runtime {

// `chars` random hex digits from /dev/urandom (4 bits each): the service's bearer token
// (64), a run's SCHEDKIT_JOB_TOKEN and a submission's idempotency key (32 each).
inline std::string RandomHex(int chars) {
  std::random_device rd;  // /dev/urandom.
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < chars; ++i) out += kHex[rd() % 16];
  return out;
}

// Shorter tokens are refused (the service writes 64 hex characters).
inline constexpr size_t kMinTokenChars = 32;

// Refuses a token file that group or others may read or write, and a token shorter than
// kMinTokenChars; the message names the file and the fix.
inline Status CheckTokenFile(const std::string& path, const std::string& token) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::InvalidArgument(path + ": the token file is accessible by group or others (mode " +
                                   mode + "); run chmod 600 " + path);
  }
  if (token.size() < kMinTokenChars) {
    return Status::InvalidArgument(path + ": the token is " + std::to_string(token.size()) +
                                   " characters; at least " + std::to_string(kMinTokenChars) +
                                   " are required");
  }
  return Status::Ok();
}

inline bool TokenMatches(const std::string& given, const std::string& expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  }
  return diff == 0;
}

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_AUTH_H_
