#include "predict/job_name.h"

#include <algorithm>

namespace schedkit::predict {

namespace {
enum class CharClass { kOther, kLetter, kDigit };
CharClass Classify(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return CharClass::kLetter;
  if (c >= '0' && c <= '9') return CharClass::kDigit;
  return CharClass::kOther;
}
}  // namespace

std::vector<std::string> NameTokens(std::string_view name) {
  std::vector<std::string> out;
  std::string current;
  CharClass current_class = CharClass::kOther;
  auto flush = [&] {
    if (!current.empty() && std::find(out.begin(), out.end(), current) == out.end()) {
      out.push_back(current);
    }
    current.clear();
  };
  for (char c : name) {
    const CharClass k = Classify(c);
    if (k != current_class) flush();
    current_class = k;
    if (k == CharClass::kLetter) current.push_back(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (k == CharClass::kDigit) current.push_back(c);
  }
  flush();
  return out;
}

}  // namespace schedkit::predict
