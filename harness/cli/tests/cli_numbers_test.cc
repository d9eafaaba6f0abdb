// Every number a user types is taken as typed or refused (issue 35). The options come from the
// command line's own list, so a new numeric option is covered without editing this file; a
// numeric option added past that list fails EveryOptionTakingANumberIsInTheList.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "baselines/temp_dir.h"
#include "datasets/tests/test_paths.h"
#include "harness/cli/command_line.h"
#include "harness/cli/engines.h"

namespace sparsebench::cli {
namespace {

struct Outcome {
  int status;
  std::string err;
};

// What `sparsebench ARGS` exits with and says, in process, parsing only: no subcommand runs.
Outcome Parse(const std::vector<std::string>& args) {
  CommandLine cli(BuiltinEngines());
  cli.ParseOnly();
  std::vector<const char*> argv = {"sparsebench"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::FILE* err = std::tmpfile();
  const int status = cli.Run(static_cast<int>(argv.size()), argv.data(), err);
  std::rewind(err);
  std::string text;
  std::array<char, 4096> buffer;
  for (size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), err)) > 0;)
    text.append(buffer.data(), got);
  std::fclose(err);
  return {status, text};
}

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string Fill(const std::string& pattern, const std::string& number) {
  const size_t at = pattern.find("{}");
  return pattern.substr(0, at) + number + pattern.substr(at + 2);
}

// NaN and infinities in several spellings, empty, trailing and leading junk, overflow of the
// type, a sign on unsigned, fractions on integers, and the first values past each end.
template <typename T>
std::vector<std::string> BadValues(const NumberRange<T>& r) {
  std::vector<std::string> bad = {"",
                                  "nan",
                                  "NaN",
                                  "-nan",
                                  "NAN(1)",
                                  "inf",
                                  "-inf",
                                  "Infinity",
                                  "+INF",
                                  "1x",
                                  "1 ",
                                  " 1",
                                  "+1",
                                  "0x1",
                                  "1,5",
                                  "one",
                                  "99999999999999999999999"};
  if constexpr (std::is_floating_point_v<T>) {
    bad.push_back("1e400");
    bad.push_back(r.above_min ? NumberText(r.min) : NumberText(std::nextafter(r.min, -INFINITY)));
    bad.push_back(NumberText(std::nextafter(r.max, INFINITY)));
  } else {
    bad.insert(bad.end(), {"1.5", "1e3", "2.0", NumberText(std::numeric_limits<T>::max()) + "0"});
    if (std::is_unsigned_v<T>) bad.insert(bad.end(), {"-1", "-0"});
    if (r.min > std::numeric_limits<T>::min()) bad.push_back(NumberText(r.min - 1));
    if (r.max < std::numeric_limits<T>::max()) bad.push_back(NumberText(r.max + 1));
  }
  return bad;
}

template <typename T>
std::vector<std::string> Boundaries(const NumberRange<T>& r) {
  if (r.above_min) return {NumberText(r.max)};
  return {NumberText(r.min), NumberText(r.max)};
}

// The required options and arguments each subcommand is given beside the one under test (the
// files are not opened: nothing runs). A subcommand that needs more fails
// DocumentedBoundariesAreAccepted, naming it.
std::vector<std::string> Required(const std::string& command) {
  static const std::map<std::string, std::string> required = {
      {"train", "--engine sparse --train x --test x"},
      {"data gen", "--preset yelp --out x"},
      {"data check", "x"},
      {"predict", "--model x"},
      {"report", "x --out x"},
      {"compare", "x y"},
      {"history check", "x"}};
  const auto it = required.find(command);
  return it == required.end() ? std::vector<std::string>{} : Words(it->second);
}

void ForEachSubcommand(CLI::App& app, const std::function<void(CLI::App&)>& fn) {
  for (CLI::App* sub : app.get_subcommands({})) {
    fn(*sub);
    ForEachSubcommand(*sub, fn);
  }
}

TEST(CliNumbers, EveryOptionTakingANumberIsInTheList) {
  CommandLine cli(BuiltinEngines());
  std::set<std::pair<std::string, std::string>> listed;
  for (const NumberOption& o : cli.numbers().list()) listed.insert({o.command, o.name});
  size_t found = 0;
  ForEachSubcommand(cli.app(), [&](CLI::App& sub) {
    for (const CLI::Option* option : sub.get_options()) {
      if (option == sub.get_help_ptr() || option->get_items_expected_max() == 0) continue;  // flags
      if (listed.contains({CommandPath(sub), option->get_name()})) {
        ++found;
        continue;
      }
      const std::string type = option->get_type_name();
      EXPECT_TRUE(type == "TEXT" || type.starts_with("TEXT:"))
          << CommandPath(sub) << " " << option->get_name() << " takes " << type
          << ": numbers must be added through NumberOptions, which ParseNumber reads";
    }
  });
  EXPECT_EQ(found, listed.size());
  EXPECT_GE(found, 28u);  // train 12, data gen 4, data check 2, predict 2, run 3, compare 2,
                          // history show 1, history check 2
}

TEST(CliNumbers, EveryNumericOptionRefusesBadValuesNamingItself) {
  const CommandLine cli(BuiltinEngines());
  size_t cases = 0;
  for (const NumberOption& o : cli.numbers().list()) {
    const auto bad = std::visit([](const auto& range) { return BadValues(range); }, o.range);
    for (const std::string& value : bad) {
      std::vector<std::string> args = Words(o.command);
      args.insert(args.end(), {o.name, Fill(o.pattern, value)});
      const Outcome r = Parse(args);
      const int error = o.command == "history check" ? 3 : 2;  // check's own code for an error
      EXPECT_EQ(r.status, error) << o.command << " " << o.name << " '" << value << "'\n" << r.err;
      EXPECT_TRUE(r.err.starts_with("error: " + o.name + ": "))
          << o.command << " " << o.name << " '" << value << "'\n"
          << r.err;
      ++cases;
    }
  }
  EXPECT_GE(cases, 25u * 20);
}

TEST(CliNumbers, DocumentedBoundariesAreAccepted) {
  const CommandLine cli(BuiltinEngines());
  for (const NumberOption& o : cli.numbers().list()) {
    for (const std::string& value :
         std::visit([](const auto& range) { return Boundaries(range); }, o.range)) {
      std::vector<std::string> args = Words(o.command);
      const std::vector<std::string> required = Required(o.command);
      args.insert(args.end(), required.begin(), required.end());
      args.insert(args.end(), {o.name, Fill(o.pattern, value)});
      const Outcome r = Parse(args);
      EXPECT_EQ(r.status, 0) << o.command << " " << o.name << " " << value << "\n" << r.err;
    }
  }
}

// --- The binary, as a user runs it: exit status, and values printed back as typed. ---

struct Ran {
  int status;
  std::string out;  // stdout and stderr together
};

Ran Shell(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  Ran r{-1, ""};
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer;
  for (size_t got; (got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    r.out.append(buffer.data(), got);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

Ran Cli(const std::string& args) { return Shell(std::string(SPARSEBENCH_BINARY) + " " + args); }

nlohmann::json JsonLine(const std::string& output) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("{")) return nlohmann::json::parse(line);
  }
  return nullptr;
}

// The two findings: `--lr nan` trained at the default rate and exited 0; a negative
// seed wrapped through an unsigned parse (train and data gen).
TEST(CliNumbers, NanRateAndNegativeSeedAreRefused) {
  const std::string data = testing::DataFile("xmc_valid.txt");
  const std::string train = "train --engine sparse --train " + data + " --test " + data;
  const Ran lr = Cli(train + " --lr nan");
  EXPECT_EQ(lr.status, 2) << lr.out;
  EXPECT_NE(lr.out.find("error: --lr: 'nan' is NaN, not a number"), std::string::npos) << lr.out;
  const Ran seed = Cli(train + " --seed -5");
  EXPECT_EQ(seed.status, 2) << seed.out;
  EXPECT_NE(seed.out.find("error: --seed: '-5' is negative"), std::string::npos) << seed.out;
  testing::TempDir dir;
  const Ran gen = Cli("data gen --preset yelp --scale 0.001 --seed -1 --out " + dir.path());
  EXPECT_EQ(gen.status, 2) << gen.out;
  EXPECT_NE(gen.out.find("error: --seed: '-1' is negative"), std::string::npos) << gen.out;
}

TEST(CliNumbers, TrainPrintsBackTheBoundariesAsTyped) {
  const std::string data = testing::DataFile("xmc_valid.txt");
  const std::string train = "train --engine sparse --train " + data + " --test " + data + " ";
  const struct {
    std::string args;
    nlohmann::json expected;  // keys of the JSON line
    std::string optimizer;    // part of the optimizer column, which names the lr schedule
  } cases[] = {
      {"--lr 1e-7 --seed 0 --threads 1 --epochs 1 --batch 1 --target 0 --lr-half-life 0 "
       "--evals-per-epoch 0 "
       "--eval-sample 1 --recall-sample 0 --latency-samples 0 --buckets 1",
       {{"lr", 1e-7}, {"seed", 0}, {"threads", 1}, {"epochs", 1}, {"batch", 1}, {"target", 0.0}},
       "constant lr"},
      {"--lr 10 --seed 18446744073709551615 --epochs 10000 --target 1 --lr-half-life 4000000000",
       {{"lr", 10.0}, {"seed", UINT64_MAX}, {"epochs", 10000}, {"target", 1.0}},
       "lr holds for 4000000000 samples"},
      {"--batch 1048576 --threads 1024 --evals-per-epoch 1000 --eval-sample 4294967295 "
       "--recall-sample 4294967295 "
       "--latency-samples 4294967295 --buckets 1073741824",
       {{"batch", 1048576}, {"threads", 1024}},
       ""},
      {"--lr 0.0012345678 --target 0.123456789",
       {{"lr", 0.0012345678}, {"target", 0.123456789}},
       ""},
  };
  for (const auto& c : cases) {
    const Ran r = Cli(train + c.args);
    ASSERT_EQ(r.status, 0) << c.args << "\n" << r.out;
    const nlohmann::json line = JsonLine(r.out);
    ASSERT_TRUE(line.is_object()) << r.out;
    for (const auto& [key, value] : c.expected.items())
      EXPECT_EQ(line[key], value) << c.args << ": " << key;
    EXPECT_NE(line["optimizer"].get<std::string>().find(c.optimizer), std::string::npos)
        << line["optimizer"];
  }
}

TEST(CliNumbers, OtherCommandsPrintBackTheBoundariesAsTyped) {
  const std::string csv = testing::DataFile("csv_yelp.csv");
  for (const char* buckets : {"1", "1073741824"}) {
    const Ran check =
        Cli(std::string("data check --threads 1024 --buckets ") + buckets + " " + csv);
    EXPECT_EQ(check.status, 0) << check.out;
    EXPECT_NE(check.out.find(std::string("features (D)         ") + buckets + "\n"),
              std::string::npos)
        << check.out;
  }
  testing::TempDir dir;
  const Ran gen =
      Cli("data gen --preset amazon670k --scale 0.001 --labels 2 --seed 18446744073709551615 "
          "--threads 1024 --out " +
          dir.path());
  ASSERT_EQ(gen.status, 0) << gen.out;
  EXPECT_NE(Cli("data check " + dir.file("train.txt")).out.find("labels (L)           2\n"),
            std::string::npos);

  const std::string model = dir.file("text.spb");
  ASSERT_EQ(Cli("train --engine text:epochs=1,hidden=8 --train " + csv + " --test " + csv +
                " --save " + model)
                .status,
            0);
  const Ran one = Shell("echo hello | " + std::string(SPARSEBENCH_BINARY) +
                        " predict --top-k 1000 --max-line-bytes 1 --model " + model);
  EXPECT_EQ(one.out, "1\terror: line of 5 bytes is longer than --max-line-bytes 1\n");
  const Ran most = Shell("echo hello | " + std::string(SPARSEBENCH_BINARY) +
                         " predict --top-k 1 --max-line-bytes 1073741824 --model " + model);
  EXPECT_TRUE(most.out.starts_with("1\t")) << most.out;
  EXPECT_EQ(std::count(most.out.begin(), most.out.end(), '\t'), 2)
      << most.out;  // one label and its score
}

// A matrix's lr reaches its cells as typed, --price-per-hour reaches results.csv as typed, and
// `compare` prints its bounds back as typed.
TEST(CliNumbers, RunPassesSettingsThroughAsTyped) {
  testing::TempDir dir;
  const std::string data = testing::DataFile("xmc_valid.txt"), matrix = dir.file("m.toml");
  std::ofstream(matrix)
      << "evals_per_epoch = 0\nlatency_samples = 0\n[[datasets]]\nname = \"tiny\"\ntrain = \""
      << data << "\"\ntest = \"" << data
      << "\"\nengines = [{ spec = \"sparse\", lr = 0.0012345678 }]\n";
  const Ran run = Cli("run --matrix " + matrix + " --out " + dir.file("out") +
                      " --repeats 1 --shard 0/1 --price-per-hour 1000000 --data " + dir.path());
  ASSERT_EQ(run.status, 0) << run.out;
  std::ifstream in(dir.file("out/results.csv"));
  const std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(csv.find(",0.0012345678,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1000000,"), std::string::npos) << csv;
  const std::string results = dir.file("out");
  for (const auto& [args, bounds] : std::vector<std::pair<std::string, std::string>>{
           {"--max-slowdown 0% --max-metric-drop 0", "slowdown 0% "},
           {"--max-slowdown 1000000 --max-metric-drop 100", "slowdown 1000000% "},
           {"--max-slowdown 12.5% --max-metric-drop 0.25", "slowdown 12.5% "}}) {
    const Ran compare = Cli("compare " + results + " " + results + " " + args);
    EXPECT_EQ(compare.status, 0) << compare.out;
    EXPECT_NE(compare.out.find("Bounds: " + bounds), std::string::npos) << compare.out;
    const std::string drop = Words(args).back();
    EXPECT_NE(compare.out.find("metric drop " + drop + " points"), std::string::npos)
        << compare.out;
  }
  const Ran shard = Cli("run --matrix " + matrix + " --out " + dir.file("out") + " --shard 1/1");
  EXPECT_EQ(shard.status, 2);
  EXPECT_NE(shard.out.find("error: --shard: '1' is out of range; expected an integer from 0 to 0"),
            std::string::npos)
      << shard.out;
}

}  // namespace
}  // namespace sparsebench::cli
