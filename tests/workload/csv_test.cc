#include "workload/csv.h"

#include <gtest/gtest.h>

#include <limits>

#include "workload_test_util.h"

namespace schedkit::workload {
namespace {

TEST(CsvReaderTest, TracksLineNumbersAcrossBlankLinesAndCrlf) {
  auto in = CsvReader::FromString("t.csv", "a,b\r\n\r\n1,2\r\n   \n3,4");
  ASSERT_TRUE(in->ReadHeader().ok());
  EXPECT_EQ(in->header_line(), 1);
  EXPECT_EQ(in->columns(), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->line(), 3);
  EXPECT_EQ(in->field(1), "2");
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->line(), 5);  // No trailing newline.
  EXPECT_EQ(in->field(0), "3");
  EXPECT_FALSE(in->Next());
  EXPECT_TRUE(in->status().ok());
}

TEST(CsvReaderTest, DropsByteOrderMarkAndTrimsSpaces) {
  auto in = CsvReader::FromString("t.csv", "\xEF\xBB\xBFjob_id , gpus\n 7 ,\t8\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  EXPECT_EQ(in->ColumnIndex("job_id"), 0);
  EXPECT_EQ(in->ColumnIndex("gpus"), 1);
  ASSERT_TRUE(in->Next());
  int64_t id = 0;
  int gpus = 0;
  ASSERT_TRUE(in->ReadInt(0, &id).ok());
  ASSERT_TRUE(in->ReadInt(1, &gpus).ok());
  EXPECT_EQ(id, 7);
  EXPECT_EQ(gpus, 8);
}

TEST(CsvReaderTest, QuotedFields) {
  auto in = CsvReader::FromString("t.csv", "a,b,c\n\"x,y\",\"say \"\"hi\"\"\", \" pad \"\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  ASSERT_TRUE(in->Next()) << in->status().ToString();
  EXPECT_EQ(in->field(0), "x,y");
  EXPECT_EQ(in->field(1), "say \"hi\"");
  EXPECT_EQ(in->field(2), " pad ");
}

TEST(CsvReaderTest, UnterminatedQuoteIsAnError) {
  auto in = CsvReader::FromString("t.csv", "a,b\n1,\"oops\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  EXPECT_FALSE(in->Next());
  EXPECT_EQ(in->status().message(), "t.csv:2: unterminated quoted field 2");
}

TEST(CsvReaderTest, TsvKeepsQuotesAndSpaces) {
  auto in =
      CsvReader::FromString("t.trace", "a \"b\"\tc,d\n", {.delimiter = '\t', .quotes = false});
  ASSERT_TRUE(in->Next());
  ASSERT_EQ(in->num_fields(), 2u);
  EXPECT_EQ(in->field(0), "a \"b\"");
  EXPECT_EQ(in->field(1), "c,d");
}

TEST(CsvReaderTest, BadIntegerNamesFileLineAndField) {
  auto in = CsvReader::FromString("t.csv", "job_id,num_gpu\n0,1\n1,x\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  int gpus = 0;
  ASSERT_TRUE(in->Next());
  EXPECT_TRUE(in->ReadInt(1, &gpus).ok());
  ASSERT_TRUE(in->Next());
  Status s = in->ReadInt(1, &gpus);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "t.csv:3: field 'num_gpu': 'x' is not an integer");
}

TEST(CsvReaderTest, IntegerRejectsFractionsAndOverflowAndChecksBounds) {
  auto in = CsvReader::FromString("t.csv", "n\n1.5\n99999999999\n-2\n+3\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  int v = 0;
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->ReadInt(0, &v).message(), "t.csv:2: field 'n': '1.5' is not an integer");
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->ReadInt(0, &v).message(),
            "t.csv:3: field 'n': '99999999999' must be <= 2147483647");
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->ReadInt(0, &v, 1).message(), "t.csv:4: field 'n': '-2' must be >= 1");
  ASSERT_TRUE(in->Next());
  ASSERT_TRUE(in->ReadInt(0, &v).ok());
  EXPECT_EQ(v, 3);
}

TEST(CsvReaderTest, Doubles) {
  auto in = CsvReader::FromString("t.csv", "t\n1e3\nabc\ninf\n-0.5\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  double v = 0;
  ASSERT_TRUE(in->Next());
  ASSERT_TRUE(in->ReadDouble(0, &v).ok());
  EXPECT_EQ(v, 1000.0);
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->ReadDouble(0, &v).message(), "t.csv:3: field 't': 'abc' is not a number");
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->ReadDouble(0, &v).message(), "t.csv:4: field 't': 'inf' is not a finite number");
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->ReadDouble(0, &v, 0).message(), "t.csv:5: field 't': '-0.5' must be >= 0");
}

TEST(CsvReaderTest, MissingColumnNamesHeaderLine) {
  auto in = CsvReader::FromString("t.csv", "\njob_id,gpus\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  int col = 0;
  EXPECT_EQ(in->RequireColumn("submit_s", &col).message(), "t.csv:2: missing column 'submit_s'");
  EXPECT_EQ(col, -1);
}

TEST(CsvReaderTest, WrongFieldCount) {
  auto in = CsvReader::FromString("t.csv", "a,b,c\n1,2,3\n1,2\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  EXPECT_TRUE(in->Next());
  EXPECT_FALSE(in->Next());
  EXPECT_EQ(in->status().message(), "t.csv:3: 2 fields, expected 3 (as in the header)");
}

TEST(CsvReaderTest, EmptyFileHasNoHeader) {
  auto in = CsvReader::FromString("t.csv", "\n\n");
  EXPECT_EQ(in->ReadHeader().message(), "t.csv: file is empty (expected a header line)");
}

TEST(CsvReaderTest, OptionalFieldsKeepDefaults) {
  auto in = CsvReader::FromString("t.csv", "a,b\n,5\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  ASSERT_TRUE(in->Next());
  int a = 42;
  double b = 0;
  std::string c = "keep";
  EXPECT_TRUE(in->ReadOptionalInt(0, &a).ok());
  EXPECT_EQ(a, 42);
  EXPECT_TRUE(in->ReadOptionalDouble(1, &b).ok());
  EXPECT_EQ(b, 5.0);
  EXPECT_TRUE(in->ReadOptionalString(-1, &c).ok());  // Absent column.
  EXPECT_EQ(c, "keep");
}

TEST(CsvReaderTest, HeaderlessColumnNamesAppearInMessages) {
  auto in = CsvReader::FromString("g.trace", "A\t1\nB\tx\n", {.delimiter = '\t', .quotes = false});
  in->SetColumnNames({"job_type", "scale_factor"});
  int sf = 0;
  ASSERT_TRUE(in->Next());
  ASSERT_TRUE(in->Next());
  EXPECT_EQ(in->ReadInt(1, &sf).message(),
            "g.trace:2: field 'scale_factor': 'x' is not an integer");
}

TEST(CsvReaderTest, OpenMissingFileIsNotFound) {
  auto in = CsvReader::Open("/nonexistent/schedkit/x.csv");
  ASSERT_FALSE(in.ok());
  EXPECT_EQ(in.status().code(), Status::Code::kNotFound);
  EXPECT_NE(in.status().message().find("/nonexistent/schedkit/x.csv"), std::string::npos);
}

TEST(CsvFormatTest, DoublesRoundTripExactly) {
  for (double v : {0.0, 0.1, 1.0 / 3.0, 927475.0, 1e-300, 123456789.123456789, 6.02214076e23,
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min()}) {
    double back = -1;
    ASSERT_TRUE(ParseFiniteDouble(FormatDouble(v), &back)) << FormatDouble(v);
    EXPECT_EQ(back, v) << FormatDouble(v);
  }
  EXPECT_EQ(FormatDouble(1456.0), "1456");
  EXPECT_EQ(FormatDouble(0.886), "0.886");
}

// Issue 21: "+-7" was read as -7 (the '+' skipped, then from_chars took the sign).
TEST(CsvNumberTest, OneSignAtMost) {
  int64_t i = 0;
  double d = 0;
  EXPECT_TRUE(ParseInt64("+7", &i));
  EXPECT_EQ(i, 7);
  EXPECT_TRUE(ParseFiniteDouble("+7.5", &d));
  EXPECT_EQ(d, 7.5);
  for (const char* bad : {"+-7", "++7", "+", "-+7", "--7"}) {
    EXPECT_FALSE(ParseInt64(bad, &i)) << bad;
    EXPECT_FALSE(ParseFiniteDouble(bad, &d)) << bad;
  }
}

// Issue 21: an error about a 1 MB field repeated the whole field.
TEST(CsvReaderTest, ErrorsQuoteHugeFieldsCut) {
  auto in = CsvReader::FromString("big.csv", "gpus\n" + std::string(1000000, '7') + "x\n");
  ASSERT_TRUE(in->ReadHeader().ok());
  ASSERT_TRUE(in->Next());
  int64_t v = 0;
  const Status st = in->ReadInt(0, &v, 0, 64);
  ASSERT_FALSE(st.ok());
  EXPECT_LT(st.message().size(), 200u) << st.message().substr(0, 300);
  EXPECT_NE(st.message().find("big.csv:2: field 'gpus': '777"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("...' (1000001 bytes)"), std::string::npos) << st.message();
}

TEST(QuotedTest, ShortTextWholeLongTextCutControlCharactersEscaped) {
  EXPECT_EQ(Quoted("resnet"), "'resnet'");
  EXPECT_EQ(Quoted(std::string(kQuotedChars, 'a')), "'" + std::string(kQuotedChars, 'a') + "'");
  EXPECT_EQ(Quoted(std::string(kQuotedChars + 1, 'a')),
            "'" + std::string(kQuotedChars, 'a') + "...' (" + std::to_string(kQuotedChars + 1) + " bytes)");
  EXPECT_EQ(Quoted("a\nb\x1b"), "'a\\x0ab\\x1b'");
}

TEST(CsvFormatTest, FieldsQuotedOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("resnet18"), "resnet18");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField(" pad"), "\" pad\"");
}

}  // namespace
}  // namespace schedkit::workload
