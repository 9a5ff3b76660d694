// Internal: Lucid's look at the throughput forecast ("check_future_cluster_throughput").
//
// Lucid keeps a table it filters in place to the rows after `now` at every call, and
// averages a column over the next rows. Because the filter only ever drops past rows, a
// call's answer depends only on its own time and on whether the previous call left the
// table empty; this class answers it as that pure function.
#ifndef SCHEDKIT_LUCID_FORECAST_H_
#define SCHEDKIT_LUCID_FORECAST_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "schedkit/lucid.h"

namespace schedkit::lucid {

class ForecastView {
 public:
  explicit ForecastView(const ThroughputForecast& f) : f_(f) {}

  // Rows whose time is after `now`.
  size_t RowsAfter(int64_t now) const {
    return static_cast<size_t>(f_.time_s.end() -
                               std::upper_bound(f_.time_s.begin(), f_.time_s.end(), now));
  }
  size_t rows() const { return f_.time_s.size(); }

  // The mean of `column` over the rows after `now`: the next 5 if at least 6 remain, else
  // all that remain (NaN if none). `if_empty` is returned instead when the previous call
  // (at `previous`, or none if previous < 0) left no rows.
  double Mean(const std::vector<double>& column, int64_t now, int64_t previous,
              double if_empty) const {
    const size_t before = previous < 0 ? rows() : RowsAfter(previous);
    if (before == 0) return if_empty;
    const size_t left = RowsAfter(now);
    if (left == 0) return std::numeric_limits<double>::quiet_NaN();
    const size_t first = rows() - left;
    const size_t n = left >= 6 ? 5 : left;
    double sum = 0;
    for (size_t i = first; i < first + n; ++i) sum += column[i];
    return sum / static_cast<double>(n);
  }

  const ThroughputForecast& data() const { return f_; }

 private:
  const ThroughputForecast& f_;
};

}  // namespace schedkit::lucid

#endif  // SCHEDKIT_LUCID_FORECAST_H_
