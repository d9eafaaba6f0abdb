// `sparsebench history add/check/show/annotate` end to end: run directories written here at
// commits of a git repository made here.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "datasets/tests/test_paths.h"
#include "harness/record/cell_json.h"
#include "harness/record/files.h"

namespace sparsebench {
namespace {

struct Ran {
  int exit_code = -1;
  std::string output;
};

Ran Shell(const std::string& command) {
  Ran ran;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return ran;
  std::array<char, 4096> buffer;
  size_t got;
  while ((got = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    ran.output.append(buffer.data(), got);
  const int status = ::pclose(pipe);
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return ran;
}

class HistoryCli : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = dir_.file("repo");
    store_ = dir_.file("history");
    const Ran init = Shell(fmt::format(
        "git init -q {0} && git -C {0} -c user.name=t -c user.email=t@t commit -q --allow-empty "
        "-m first",
        repo_));
    ASSERT_EQ(init.exit_code, 0) << init.output;
  }

  // A new commit; its id.
  std::string Commit() {
    const Ran made = Shell(
        fmt::format("git -C {0} -c user.name=t -c user.email=t@t commit -q --allow-empty -m c && "
                    "git -C {0} rev-parse HEAD",
                    repo_));
    EXPECT_EQ(made.exit_code, 0) << made.output;
    return made.output.substr(0, 40);
  }

  // A run directory at `commit`: `sparse` taking `seconds` (5 repeats, 1% apart) with
  // `active` active neurons, and `blas` taking `blas` seconds.
  std::string Run(const std::string& commit, double seconds, uint64_t active = 1000,
                  bool dirty = false, double blas = 1.0) {
    const std::string run = dir_.file(fmt::format("run{}", runs_++));
    EnsureDirectory(run + "/cells");
    const nlohmann::json context = {{"git_commit", commit},
                                    {"git_dirty", dirty},
                                    {"cpu_model", "Test CPU"},
                                    {"cpu_id", "family 1"},
                                    {"arch", "x86_64"},
                                    {"isa_flags", "avx2"},
                                    {"cores", 2},
                                    {"memory_gb", 8},
                                    {"date", fmt::format("2026-01-01T00:00:{:02}Z", runs_)},
                                    {"build_flags", "test"},
                                    {"matrix", "m"}};
    WriteFileAtomically(run + "/context.json", context.dump());
    for (int repeat = 1; repeat <= 5; ++repeat) {
      for (const std::string engine : {"sparse", "blas"}) {
        CellResult r;
        r.cell_id = fmt::format("d__{}__t2__r{}", engine, repeat);
        r.dataset = "d";
        r.name = engine;
        r.spec = engine;
        r.threads = 2;
        r.repeat = repeat;
        r.status = CellStatus::kOk;
        r.metric = "p_at_1";
        r.metric_value = 0.5;
        r.train_seconds = (engine == "sparse" ? seconds : blas) * (1 + 0.01 * (repeat - 3));
        r.cell_index = repeat * 2 + (engine == "blas");
        r.seed = static_cast<uint64_t>(repeat);
        r.git_commit = commit;
        if (engine == "sparse") {
          r.epoch_details = nlohmann::json::array(
              {{{"epoch", 1}, {"active_neurons", active}, {"samples", 10}, {"rebuilds", 3}}});
        }
        WriteCellFile(r, run + "/cells/" + r.cell_id + ".json");
      }
    }
    return run;
  }

  Ran History(const std::string& args) {
    const bool git = !args.starts_with("show");  // show reads the store only
    return Shell(fmt::format("{} history {} --store {}{}", SPARSEBENCH_BINARY, args, store_,
                             git ? " --repo " + repo_ : ""));
  }

  // Four commits at 1 s each in the history; the id of the last.
  std::string Seeded() {
    std::string commit;
    for (int i = 0; i < 4; ++i) {
      commit = Commit();
      const Ran added = History("add " + Run(commit, 1.0 + 0.005 * i));
      EXPECT_EQ(added.exit_code, 0) << added.output;
    }
    return commit;
  }

  testing::TempDir dir_;
  std::string repo_, store_;
  int runs_ = 0;
};

TEST_F(HistoryCli, AddKeepsOneLinePerCellAndRefusesTheSameRunTwice) {
  const std::string commit = Commit();
  const std::string run = Run(commit, 1.0);
  const Ran added = History("add " + run);
  ASSERT_EQ(added.exit_code, 0) << added.output;
  EXPECT_NE(added.output.find("2 cell(s) of " + commit.substr(0, 8)), std::string::npos);
  const auto files = std::filesystem::directory_iterator(store_);
  const std::string file = std::filesystem::begin(files)->path().string();
  std::ifstream in(file);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["commit"], commit);
    EXPECT_EQ(j["train_seconds"].size(), 5u);
    if (j["cell"] == "d/sparse/t2") {
      ASSERT_EQ(j["counters"].size(), 5u);  // each repeat's, at its seed
      EXPECT_EQ(j["counters"][1]["active_neurons"], 1000);
      EXPECT_EQ(j["counters"][1]["seed"], 2);
      EXPECT_NEAR(j["ratio"][2].get<double>(), 1.0, 1e-12);
    }
    ++lines;
  }
  EXPECT_EQ(lines, 2);
  const Ran twice = History("add " + run);
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.output.find("in the history already"), std::string::npos) << twice.output;
  const Ran dirty = History("add " + Run(Commit(), 1.0, 1000, true));
  EXPECT_EQ(dirty.exit_code, 2);
  EXPECT_NE(dirty.output.find("uncommitted changes"), std::string::npos) << dirty.output;
}

TEST_F(HistoryCli, CheckExitsOneOnASlowdownAndZeroWithinTheNoise) {
  Seeded();
  const std::string next = Commit();
  const Ran same = History("check " + Run(next, 1.01));
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find("Result: ok."), std::string::npos) << same.output;
  const Ran slow = History("check " + Run(next, 1.5));
  EXPECT_EQ(slow.exit_code, 1) << slow.output;
  EXPECT_NE(slow.output.find("| d/sparse/t2 | seconds | REGRESSION |"), std::string::npos)
      << slow.output;
  const Ran counted = History("check " + Run(next, 1.0, 1200));
  EXPECT_EQ(counted.exit_code, 1) << counted.output;
  EXPECT_NE(counted.output.find("100 → 120 per sample (+20.0%; 5000 → 6000 in all over 5 seed(s))"),
            std::string::npos)
      << counted.output;
}

// A machine slower as a whole (another VM, a busy neighbour): every engine slower, the ratios
// held. Noted, not failed; the reference engine alone slower still fails.
TEST_F(HistoryCli, AMachineSlowerAsAWholeIsNotARegression) {
  Seeded();
  const std::string next = Commit();
  const Ran slow_machine = History("check " + Run(next, 1.4, 1000, false, 1.4));
  EXPECT_EQ(slow_machine.exit_code, 0) << slow_machine.output;
  EXPECT_NE(slow_machine.output.find("| d/sparse/t2 | seconds | note | the machine ran slower; "
                                     "the ratio to the reference engine held"),
            std::string::npos)
      << slow_machine.output;
  EXPECT_NE(slow_machine.output.find("| d/blas/t2 | seconds | note | the machine ran slower (the "
                                     "other engines' median +39"),
            std::string::npos)
      << slow_machine.output;
  const Ran slow_blas = History("check " + Run(next, 1.0, 1000, false, 1.4));
  EXPECT_EQ(slow_blas.exit_code, 1) << slow_blas.output;
  EXPECT_NE(slow_blas.output.find("| d/blas/t2 | seconds | REGRESSION |"), std::string::npos)
      << slow_blas.output;
}

TEST_F(HistoryCli, AnAnnotationAcceptsAnIntendedChange) {
  Seeded();
  const std::string next = Commit();
  const Ran annotated = History(fmt::format(
      "annotate {} --cell 'd/sparse/*' --reason 'twice the layer'", next.substr(0, 10)));
  ASSERT_EQ(annotated.exit_code, 0) << annotated.output;
  const Ran check = History("check " + Run(next, 2.0, 2000));
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("a new segment starts here: twice the layer"), std::string::npos)
      << check.output;
  EXPECT_EQ(History("annotate nosuchcommit --cell '*' --reason x").exit_code, 2);
}

TEST_F(HistoryCli, CheckErrorsExitThreeNamingTheFileAndLine) {
  Seeded();
  const std::string run = Run(Commit(), 1.0);
  const std::string file =
      std::filesystem::begin(std::filesystem::directory_iterator(store_))->path().string();
  std::ofstream(file, std::ios::app) << "{\"commit\": \"abc\"\n";
  const Ran broken = History("check " + run);
  EXPECT_EQ(broken.exit_code, 3) << broken.output;
  EXPECT_NE(broken.output.find(file + ":9"), std::string::npos) << broken.output;
  EXPECT_EQ(History("check " + dir_.file("missing")).exit_code, 3);
  EXPECT_EQ(History("check").exit_code, 3);
  EXPECT_EQ(History("check " + run + " --max-slowdown ten").exit_code, 3);
}

// Another machine's history: the times are compared as ratios and noted, never failed on.
TEST_F(HistoryCli, OnAMachineWithoutASeriesTimesAreNotedNotGated) {
  Seeded();
  const std::string run = Run(Commit(), 3.0);
  nlohmann::json context =
      nlohmann::json::parse(ReadRegularFile(run + "/context.json", 1 << 20, "x"));
  context["cpu_model"] = "Other CPU";
  WriteFileAtomically(run + "/context.json", context.dump());
  const Ran check = History("check " + run);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("this machine has no series"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("| d/sparse/t2 | ratio | note |"), std::string::npos) << check.output;
}

TEST_F(HistoryCli, ShowDrawsEachCellsSeries) {
  Seeded();
  const Ran show = History("show");
  ASSERT_EQ(show.exit_code, 0) << show.output;
  EXPECT_NE(show.output.find("## Test CPU, 2 cores"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("| d/sparse/t2 | 4 | ▁▃▆█ 1–1.01 s |"), std::string::npos)
      << show.output;
  const Ran one = History("show --cell 'd/blas/*'");
  EXPECT_EQ(one.output.find("d/sparse/t2"), std::string::npos) << one.output;
}

// `history report`: one self-contained page with each commit's subject from git, and its
// markdown summary; a store with nothing in it is an error naming it.
TEST_F(HistoryCli, ReportWritesThePageAndItsSummary) {
  Seeded();
  const std::string out = dir_.file("page");
  const Ran report = History("report --html " + out);
  ASSERT_EQ(report.exit_code, 0) << report.output;
  std::ifstream html_file(out + "/index.html"), md_file(out + "/summary.md");
  const std::string html((std::istreambuf_iterator<char>(html_file)), {}),
      md((std::istreambuf_iterator<char>(md_file)), {});
  EXPECT_NE(html.find("<script type=\"application/json\" id=\"history-data\">"), std::string::npos);
  EXPECT_NE(html.find("\"subject\":\"c\""), std::string::npos);  // from git
  for (const char* fetching : {"src=", "<link", "fetch(", "XMLHttpRequest", "url(", "import("})
    EXPECT_EQ(html.find(fetching), std::string::npos) << fetching << ": the page stands alone";
  EXPECT_NE(md.find("| `d/sparse/t2` | time ÷ blas |"), std::string::npos) << md;
  EXPECT_NE(md.find("no regression"), std::string::npos) << md;
  EXPECT_NE(md.find("[index.html](index.html)"), std::string::npos) << md;
  const Ran none = Shell(fmt::format("{} history report --html {} --store {}", SPARSEBENCH_BINARY,
                                     dir_.file("page2"), dir_.file("none")));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.output.find("no history to report"), std::string::npos) << none.output;
}

}  // namespace
}  // namespace sparsebench
