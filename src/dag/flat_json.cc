// A hand-written parser for the strict subset of JSON described in flat_json.h: one pass,
// no recursion (an explicit stack of open containers), no allocation per value.
#include "dag/flat_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace schedkit {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool FlatJson::Parse(const std::string& text_in) {
  const std::string_view text = text_in;
  if (text.size() >= std::numeric_limits<uint32_t>::max()) return false;
  text_ = text;
  nodes_.clear();
  // Every value but the last takes at least two bytes ("1,"), so this never reallocates;
  // only the pages actually written are faulted in.
  nodes_.reserve(text.size() / 2 + 2);
  nodes_.emplace_back();      // The root, written last.
  std::vector<Node> pending;  // Children of the open containers, innermost last.
  struct Open {
    size_t node;         // The container's position in `pending`.
    size_t first_child;  // Where its children start in `pending`.
  };
  std::vector<Open> open;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin;
  uint16_t key_len = 0;
  uint32_t key_pos = 0;

  auto skip_ws = [&] {
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') ++p;  // Stops at the NUL.
  };
  // A string without escapes or non-ASCII bytes; p at the opening quote.
  auto scan_string = [&](uint32_t* pos, uint32_t* len) {
    if (p == end || *p != '"') return false;
    const char* s = ++p;
    while (p < end) {
      const unsigned char c = static_cast<unsigned char>(*p);
      if (c == '"') break;
      if (c < 0x20 || c == '\\' || c >= 0x80) return false;
      ++p;
    }
    if (p == end) return false;
    *pos = static_cast<uint32_t>(s - begin);
    *len = static_cast<uint32_t>(p - s);
    ++p;
    return true;
  };
  // `"key" :` of an object member.
  auto scan_key = [&] {
    uint32_t pos = 0, len = 0;
    if (!scan_string(&pos, &len) || len > std::numeric_limits<uint16_t>::max()) return false;
    key_pos = pos;
    key_len = static_cast<uint16_t>(len);
    skip_ws();
    if (p == end || *p != ':') return false;
    ++p;
    return true;
  };
  auto no_duplicate_keys = [&](const Node* kids, size_t n) {
    auto key = [&](const Node& k) { return text.substr(k.key_pos, k.key_len); };
    if (n <= 16) {
      for (size_t i = 1; i < n; ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (key(kids[i]) == key(kids[j])) return false;
        }
      }
      return true;
    }
    std::vector<std::string_view> keys;
    for (size_t i = 0; i < n; ++i) keys.push_back(key(kids[i]));
    std::sort(keys.begin(), keys.end());
    return std::adjacent_find(keys.begin(), keys.end()) == keys.end();
  };
  auto close = [&] {
    const Open top = open.back();
    open.pop_back();
    const size_t n = pending.size() - top.first_child;
    Node& container = pending[top.node];
    if (container.type == Type::kObject && !no_duplicate_keys(&pending[top.first_child], n)) {
      return false;
    }
    if (nodes_.size() + n >= std::numeric_limits<uint32_t>::max()) return false;
    container.range.first = static_cast<uint32_t>(nodes_.size());
    container.range.count = static_cast<uint32_t>(n);
    nodes_.insert(nodes_.end(), pending.begin() + static_cast<std::ptrdiff_t>(top.first_child),
                  pending.end());
    pending.resize(top.first_child);
    return true;
  };
  auto literal = [&](std::string_view word) {
    if (static_cast<size_t>(end - p) < word.size() || std::string_view(p, word.size()) != word) {
      return false;
    }
    p += word.size();
    return true;
  };

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; integers accumulate as they are read.
  // Loops stop at the string's terminating NUL, which no rule accepts.
  auto scan_number = [&](Node* n) {
    const char* s = p;
    const bool negative = *p == '-';
    if (negative) ++p;
    const char* digits = p;
    int64_t v = 0;
    if (p < end && *p == '0') {
      ++p;
    } else if (p < end && *p >= '1' && *p <= '9') {
      while (IsDigit(*p)) v = v * 10 + (*p++ - '0');
    } else {
      return false;
    }
    if (p - digits > 18) return false;  // Exact in int64: no overflow rules to copy.
    if (*p != '.' && *p != 'e' && *p != 'E') {
      n->type = Type::kInteger;
      n->integer = negative ? -v : v;
      return true;
    }
    if (*p == '.') {
      ++p;
      if (p == end || !IsDigit(*p)) return false;
      while (p < end && IsDigit(*p)) ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      if (p == end || !IsDigit(*p)) return false;
      while (p < end && IsDigit(*p)) ++p;
    }
    n->type = Type::kFloat;
    const auto r = std::from_chars(s, p, n->number);
    return r.ec == std::errc() && r.ptr == p && std::isfinite(n->number);
  };

  for (;;) {
    // A value.
    skip_ws();
    if (p == end) return false;
    Node n;
    n.key_pos = key_pos;
    n.key_len = key_len;
    key_pos = key_len = 0;
    bool container = false;
    switch (*p) {
      case '{':
      case '[': {
        n.type = *p == '{' ? Type::kObject : Type::kArray;
        ++p;
        pending.push_back(n);
        open.push_back({pending.size() - 1, pending.size()});
        skip_ws();
        if (p < end && *p == (n.type == Type::kObject ? '}' : ']')) {
          ++p;
          if (!close()) return false;
        } else if (n.type == Type::kObject) {
          if (!scan_key()) return false;
          continue;
        } else {
          continue;
        }
        container = true;
        break;
      }
      case '"': {
        n.type = Type::kString;
        if (!scan_string(&n.range.first, &n.range.count)) return false;
        break;
      }
      case 't':
        n.type = Type::kTrue;
        if (!literal("true")) return false;
        break;
      case 'f':
        n.type = Type::kFalse;
        if (!literal("false")) return false;
        break;
      case 'n':
        n.type = Type::kNull;
        if (!literal("null")) return false;
        break;
      default:
        if (!scan_number(&n)) return false;
        break;
    }
    if (!container) pending.push_back(n);
    // After a value: separators and closing brackets, until the next value or the end.
    for (;;) {
      skip_ws();
      if (open.empty()) {
        if (p != end || pending.size() != 1) return false;
        nodes_[0] = pending[0];
        return true;
      }
      if (p == end) return false;
      const bool in_object = pending[open.back().node].type == Type::kObject;
      if (*p == ',') {
        ++p;
        skip_ws();
        if (in_object) {
          if (!scan_key()) return false;
          break;
        }
        // Most of a numeric file: runs of numbers in an array, read here without the
        // dispatch.
        if (!IsDigit(*p) && *p != '-') break;
        bool value_next = false;  // A ',' was read and a value other than a number follows.
        for (;;) {
          Node n;
          if (!scan_number(&n)) return false;
          pending.push_back(n);
          skip_ws();
          if (*p != ',') break;
          ++p;
          skip_ws();
          if (!IsDigit(*p) && *p != '-') {
            value_next = true;
            break;
          }
        }
        if (value_next) break;
        continue;  // At what follows a value: ']' or an error.
      }
      if (*p != (in_object ? '}' : ']')) return false;
      ++p;
      if (!close()) return false;
    }
  }
}

FlatJson::View FlatJson::root() const { return View(this, nodes_.data()); }

FlatJson::View::Iterator FlatJson::View::begin() const {
  if (!is_array() && !is_object()) return Iterator(doc_, node_);
  return Iterator(doc_, Children());
}

FlatJson::View::Iterator FlatJson::View::end() const {
  if (!is_array() && !is_object()) return Iterator(doc_, node_);
  return Iterator(doc_, Children() + node_->range.count);
}

FlatJson::View::Iterator FlatJson::View::find(std::string_view key) const {
  const Iterator stop = end();
  for (Iterator it = begin(); it != stop; ++it) {
    if (it->key_view() == key) return it;
  }
  return stop;
}

template <>
std::string FlatJson::View::get<std::string>() const {
  return std::string(doc_->text_.substr(node_->range.first, node_->range.count));
}

}  // namespace schedkit
