// UTC calendar arithmetic for the predictors' time features and for writing Lucid's time
// stamps ("YYYY-MM-DD HH:MM:SS"); reading them is ParseDateTimeUtc (schedkit/trace.h).
// Proleptic Gregorian, no leap seconds, no time zones.
#ifndef SCHEDKIT_PREDICT_CIVIL_TIME_H_
#define SCHEDKIT_PREDICT_CIVIL_TIME_H_

#include <cstdint>
#include <string>

namespace schedkit::predict {

std::string FormatDateTime(int64_t unix_s);

// Hour of the day, 0..24 (fractional: 13.5 = 13:30), and weekday, 0 = Monday .. 6 = Sunday.
double HourOfDay(double unix_s);
int DayOfWeek(double unix_s);

}  // namespace schedkit::predict

#endif  // SCHEDKIT_PREDICT_CIVIL_TIME_H_
