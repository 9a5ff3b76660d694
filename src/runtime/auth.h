// Bearer-token comparison, in time independent of where the strings differ.
#ifndef SCHEDKIT_RUNTIME_AUTH_H_
#define SCHEDKIT_RUNTIME_AUTH_H_

#include <string>

namespace schedkit::runtime {

inline bool TokenMatches(const std::string& given, const std::string& expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    diff |= static_cast<unsigned char>(expected[i] ^ (i < given.size() ? given[i] : 0));
  }
  return diff == 0;
}

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_AUTH_H_
