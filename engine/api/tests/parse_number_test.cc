#include "engine/api/parse_number.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/api/engine_error.h"
#include "engine/api/spec.h"

namespace sparsebench {
namespace {

template <typename T>
std::string Refusal(const std::string& text, NumberRange<T> range) {
  try {
    ParseNumber(text, "--x", range);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(ParseNumber, TakesWholeBase10Numbers) {
  EXPECT_EQ(ParseNumber<uint32_t>("17", "--x", {1, 100}), 17u);
  EXPECT_EQ(ParseNumber<uint32_t>("007", "--x", {1, 100}), 7u);  // decimal, not octal
  EXPECT_EQ(ParseNumber<int>("-3", "--x", {-5, 5}), -3);
  EXPECT_EQ(ParseNumber<uint64_t>("18446744073709551615", "--x", {0, UINT64_MAX}), UINT64_MAX);
  EXPECT_EQ(ParseNumber<double>("1e-7", "--x", {1e-7, 10}), 1e-7);
  EXPECT_EQ(ParseNumber<double>(".5", "--x", {0, 1}), 0.5);
  const double zero = ParseNumber<double>("-0", "--x", {0, 1});
  EXPECT_EQ(zero, 0.0);
  EXPECT_FALSE(std::signbit(zero));
}

TEST(ParseNumber, RefusesEverythingElseNamingTheSettingAndTheRange) {
  const NumberRange<double> lr{1e-7, 10};
  const NumberRange<uint64_t> seed{0, UINT64_MAX};
  const NumberRange<uint32_t> epochs{1, 10000};
  const struct {
    std::string got, want;
  } cases[] = {
      {Refusal("nan", lr), "--x: 'nan' is NaN, not a number; expected a number from 1e-07 to 10"},
      {Refusal("-NaN", lr), "is NaN"},
      {Refusal("nan(0x7)", lr), "is NaN"},
      {Refusal("NAN", seed), "is NaN"},
      {Refusal("inf", lr), "'inf' is infinite"},
      {Refusal("-Infinity", lr), "is infinite"},
      {Refusal("INF", epochs), "is infinite"},
      {Refusal("", lr), "--x: the value is empty"},
      {Refusal("-5", seed),
       "--x: '-5' is negative; expected an integer from 0 to 18446744073709551615"},
      {Refusal("-0", epochs), "is negative"},
      {Refusal("18446744073709551616", seed), "does not fit in a 64-bit unsigned integer"},
      {Refusal("4294967296", epochs), "does not fit in a 32-bit unsigned integer"},
      {Refusal<int>("2147483648", {1, 1024}), "does not fit in a 32-bit integer"},
      {Refusal("1e400", lr), "does not fit in a 64-bit float"},
      {Refusal("1e-400", lr), "does not fit in a 64-bit float"},
      {Refusal("12x", epochs), "'12x' has trailing characters"},
      {Refusal("0.5 ", lr), "has trailing characters"},
      {Refusal("0x10", epochs), "has trailing characters"},
      {Refusal(" 5", epochs), "is not a number"},
      {Refusal("+5", epochs), "is not a number"},
      {Refusal("abc", lr), "is not a number"},
      {Refusal("1.5", epochs), "'1.5' is not an integer"},
      {Refusal("1e3", epochs), "is not an integer"},
      {Refusal("0", epochs), "'0' is out of range; expected an integer from 1 to 10000"},
      {Refusal("10001", epochs), "is out of range"},
      {Refusal("9.9e-8", lr), "is out of range"},
      {Refusal("10.000001", lr), "is out of range"},
      {Refusal<double>("0", {0, 100, true}),
       "'0' is out of range; expected a number above 0 and at most 100"},
      {Refusal(std::string(100, '9') + "\n", lr), "'" + std::string(40, '9') + "...'"},
  };
  for (const auto& c : cases)
    EXPECT_NE(c.got.find(c.want), std::string::npos) << c.got << "\nwanted: " << c.want;
}

TEST(ParseNumber, NumberTextReadsBackToTheSameValue) {
  for (const double v : {1e-7, 0.005, 0.1, 10.0, 0.0012345678, 1.0 / 3, 123456789.0}) {
    EXPECT_EQ(ParseNumber<double>(NumberText(v), "--x", {0, 1e9}), v) << NumberText(v);
  }
  EXPECT_EQ(NumberText(1e-7), "1e-07");
  EXPECT_EQ(NumberText(10), "10");
  EXPECT_EQ(NumberText(0.005), "0.005");
}

// Engine spec values are read by the same routine and say which engine and key they belong to.
TEST(ParseNumber, SpecValuesGoThroughIt) {
  for (const char* text :
       {"sparse:out_sparsity=nan", "sparse:out_sparsity=inf", "sparse:hidden=-1",
        "sparse:hidden=12x", "sparse:hidden=99999999999999999999", "sparse:hidden=1.5"}) {
    Spec spec = Spec::Parse(text);
    try {
      spec.Double("out_sparsity", 1, 1e-7, 1);
      spec.Int("hidden", 128, 1, 1 << 16);
      ADD_FAILURE() << text << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with("engine spec 'sparse': ")) << e.what();
    }
  }
  Spec spec = Spec::Parse("sparse:k=auto,l=7");
  EXPECT_EQ(spec.AutoInt("k", 1, 32), std::nullopt);
  EXPECT_EQ(spec.AutoInt("l", 1, 32), 7);
  EXPECT_EQ(spec.AutoDouble("share", 0, 1), std::nullopt);
  spec.Finish();
  EXPECT_THROW(Spec::Parse("sparse:hidden=auto").Int("hidden", 128, 1, 1 << 16), ConfigError);
}

}  // namespace
}  // namespace sparsebench
