#include "predict/civil_time.h"

#include <cmath>
#include <cstdio>

namespace schedkit::predict {

namespace {

constexpr int64_t kDay = 86400;

// The date of day `z` since 1970-01-01, proleptic Gregorian (Hinnant's civil-from-days).
void CivilFromDays(int64_t z, int64_t* y, int* m, int* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::string FormatDateTime(int64_t t) {
  const int64_t days = FloorDiv(t, kDay);
  const int64_t secs = t - days * kDay;
  int64_t y;
  int m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02d %02d:%02d:%02d", static_cast<long long>(y), m, d,
                static_cast<int>(secs / 3600), static_cast<int>(secs / 60 % 60),
                static_cast<int>(secs % 60));
  return buf;
}

double HourOfDay(double t) {
  const double day = std::floor(t / kDay);
  return (t - day * kDay) / 3600.0;
}

int DayOfWeek(double t) {
  // 1970-01-01 was a Thursday (3 with Monday = 0).
  const int64_t days = static_cast<int64_t>(std::floor(t / kDay));
  return static_cast<int>(((days + 3) % 7 + 7) % 7);
}

}  // namespace schedkit::predict
