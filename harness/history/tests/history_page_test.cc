// The history page: its model from a synthetic store, and the page itself opened in headless
// Chromium (skipped, with a message, where no browser can run).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "harness/cli/engines.h"
#include "harness/history/page_html.h"
#include "harness/history/tests/synthetic.h"
#include "harness/proc/subprocess.h"

namespace sparsebench {
namespace {

namespace fs = std::filesystem;
using testing::Joined;
using testing::Noisy;

constexpr size_t kCommits = 32, kStep = 10, kCountStep = 20;

std::string Commit(size_t i) { return fmt::format("{:08x}{:032x}", 0xc0ffee00 + i, i); }

HistoryRecord Record(size_t i, const std::string& engine, const std::string& spec,
                     std::vector<double> seconds, std::vector<double> ratio) {
  HistoryRecord r;
  r.commit = Commit(i);
  r.parent = i == 0 ? "" : Commit(i - 1);
  r.commit_date = fmt::format("2026-12-01T00:{:02}:00+00:00", i);
  r.run_date = fmt::format("2026-12-02T00:{:02}:00Z", i);
  r.machine = "m1";
  r.machine_name = "Test CPU, 2 cores [m1]";
  r.build = "test";
  r.matrix = "quick";
  r.cell = "ds/" + engine + "/t2";
  r.settings_hash = engine;
  r.spec = spec;
  r.reference = "blas";
  r.train_seconds = std::move(seconds);
  r.ratio = std::move(ratio);
  r.metric = "p_at_1";
  r.metric_value.assign(r.train_seconds.size(), 0.3);
  return r;
}

// A store of 32 commits: blas flat at 1 s; sparse at 0.5 of blas, 0.6 from commit 10 on, its
// active neurons per sample 100, 110 from commit 20 on.
fs::path SyntheticStore() {
  const fs::path dir = fs::temp_directory_path() / fmt::format("history-page-{}", ::getpid());
  fs::remove_all(dir);
  const HistoryStore store(dir.string());
  const std::vector<double> level =
      Joined(std::vector<double>(kStep, 0.5), std::vector<double>(kCommits - kStep, 0.6));
  for (size_t i = 0; i < kCommits; ++i) {
    const std::vector<double> blas = Noisy(4, 1.0, 0.02, 100 + i);
    const std::vector<double> noise = Noisy(4, 1.0, 0.02, 200 + i);
    std::vector<double> ratio, seconds;
    for (size_t r = 0; r < 4; ++r) {
      ratio.push_back(level[i] * noise[r]);
      seconds.push_back(ratio.back() * blas[r]);
    }
    HistoryRecord sparse = Record(i, "sparse", "sparse", seconds, ratio);
    for (uint64_t seed = 0; seed < 4; ++seed) {
      sparse.counters.push_back(
          {seed, {{"samples", 1000}, {"active_neurons", i < kCountStep ? 100000u : 110000u}}});
    }
    store.Append({Record(i, "blas", "blas", blas, std::vector<double>(4, 1.0)), sparse});
  }
  return dir;
}

HistoryPage PageOf(const fs::path& store) {
  return BuildPage(HistoryStore(store.string()), BuiltinEngines(), {}, PageOptions{});
}

const PageCell& CellOf(const HistoryPage& page, const std::string& id) {
  for (const PageCell& c : page.machines.at(0).cells) {
    if (c.id == id) return c;
  }
  throw std::runtime_error("no cell " + id);
}

TEST(HistoryPage, ModelFindsTheStepTheCountsAndTheSpeedUp) {
  const fs::path store = SyntheticStore();
  const HistoryPage page = PageOf(store);
  ASSERT_EQ(page.machines.size(), 1u);
  EXPECT_EQ(page.machines[0].commits.size(), kCommits);
  const PageCell& sparse = CellOf(page, "ds/sparse/t2");
  EXPECT_EQ(sparse.measure, "time ÷ blas");
  ASSERT_EQ(sparse.marks.size(), 1u);
  EXPECT_EQ(sparse.marks[0].x, kStep);
  EXPECT_EQ(sparse.marks[0].kind, "change");
  EXPECT_NEAR(sparse.fit.front(), 0.5, 0.02);
  EXPECT_NEAR(sparse.fit.back(), 0.6, 0.02);
  EXPECT_NEAR(sparse.speedup.front(), 2.0, 0.1);  // blas is the only dense row
  ASSERT_EQ(sparse.count_marks.size(), 1u);
  EXPECT_EQ(sparse.count_marks[0].x, kCountStep);
  EXPECT_EQ(sparse.per_sample.at(0).front(), 100);
  const PageCell& blas = CellOf(page, "ds/blas/t2");
  EXPECT_EQ(blas.measure, "training seconds");
  EXPECT_TRUE(blas.marks.empty());
  EXPECT_TRUE(blas.counter_names.empty());
  ASSERT_EQ(page.changes.size(), 1u);
  EXPECT_EQ(page.changes[0].to_commit, Commit(kStep));
  EXPECT_EQ(page.changes[0].from_commit, Commit(kStep - 1));
  EXPECT_NEAR(page.changes[0].change(), 0.2, 0.03);
  EXPECT_FALSE(page.changes[0].acknowledged);
  EXPECT_LT(page.changes[0].p, 0.001);
  // The newest commit against the ones before: the step and the counts' change are 12 and more
  // points back, older than the drift's window.
  EXPECT_EQ(page.ExitCode(), 0);
  const std::string md = PageMarkdown(page, "index.html");
  EXPECT_NE(md.find("`ds/sparse/t2`"), std::string::npos) << md;
  EXPECT_NE(md.find("c0ffee0a +"), std::string::npos) << md;
  EXPECT_NE(md.find("[index.html](index.html)"), std::string::npos) << md;
  fs::remove_all(store);
}

TEST(HistoryPage, AnAnnotatedStepIsAcknowledged) {
  const fs::path store = SyntheticStore();
  HistoryStore(store.string()).Append(Annotation{Commit(kStep), "ds/sparse/*", "wider", ""});
  const HistoryPage page = PageOf(store);
  ASSERT_EQ(page.changes.size(), 1u);
  EXPECT_TRUE(page.changes[0].acknowledged);
  EXPECT_EQ(page.changes[0].reason, "wider");
  EXPECT_EQ(CellOf(page, "ds/sparse/t2").marks.at(0).kind, "annotated");
  fs::remove_all(store);
}

TEST(HistoryPage, TextOfACommitCannotEndTheDataScript) {
  const fs::path store = SyntheticStore();
  HistoryPage page = PageOf(store);
  const std::string html = PageHtml(page, "now");
  const size_t data = html.find("id=\"history-data\">");
  ASSERT_NE(data, std::string::npos);
  page.machines[0].commits[0].subject = "</script><script>alert(1)</script>";
  const std::string hostile = PageHtml(page, "now");
  EXPECT_EQ(hostile.find("</script><script>alert"), std::string::npos);
  fs::remove_all(store);
}

// ---- In a real browser ----

std::string Browser() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string path = FindExecutable(name);
    if (!path.empty()) return path;
  }
  return "";
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double Px(const std::string& style, const std::string& property) {
  std::smatch m;
  const std::regex re("(^|[ ;])" + property + ": ?(-?[0-9.]+)px");
  return std::regex_search(style, m, re) ? std::stod(m[2]) : NAN;
}

// The DOM of `page` once headless Chromium ran its scripts, and what Chromium logged.
struct Opened {
  ProcessResult process;
  std::string dom, log;
};
Opened Open(const std::string& chromium, const fs::path& page) {
  const fs::path dir = page.parent_path();
  ProcessLimits limits;
  limits.seconds = 60;
  Opened o;
  o.process = RunProcess({chromium, "--headless", "--no-sandbox", "--disable-gpu",
                          "--enable-logging=stderr", "--v=0", "--window-size=1400,1800",
                          "--virtual-time-budget=5000", "--dump-dom", "file://" + page.string()},
                         dir / "dom.html", dir / "browser.log", limits);
  o.dom = Slurp(dir / "dom.html");
  o.log = Slurp(dir / "browser.log");
  return o;
}

TEST(HistoryPage, ChromiumDrawsEveryChartAndTheChangeWhereTheDataSaysIt) {
#if !SPARSEBENCH_BROWSER_TESTS
  GTEST_SKIP() << "no browser test in this build (sanitizers or qemu: Chromium cannot run "
                  "under them here)";
#endif
  const std::string chromium = Browser();
  if (chromium.empty()) GTEST_SKIP() << "no Chromium on PATH (tools/setup installs Debian's)";
  const fs::path store = SyntheticStore();
  const fs::path page_file = store / "index.html";
  std::ofstream(page_file) << PageHtml(PageOf(store), "now");
  const auto [r, dom, log] = Open(chromium, page_file);
  ASSERT_TRUE(r.ok()) << r.Describe() << "\n" << log;
  EXPECT_EQ(log.find(":CONSOLE"), std::string::npos) << "the page said something:\n" << log;
  EXPECT_NE(dom.find("<ul id=\"page-errors\" hidden=\"\"></ul>"), std::string::npos);
  // One chart per series: each cell's timed chart, the counting cell's counts chart.
  const auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = dom.find(what); at != std::string::npos; at = dom.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("class=\"chart timed\""), 2u);
  EXPECT_EQ(count("class=\"chart counts\""), 1u);
  EXPECT_NE(dom.find("data-drawn=\"3\""), std::string::npos);
  // The change point: one line, at commit 10 of the sparse chart, where uPlot puts that commit:
  // the x scale runs from -0.5 to 31.5 over the plot's width.
  const size_t chart = dom.find("class=\"chart timed\" data-cell=\"ds/sparse/t2\"");
  ASSERT_NE(chart, std::string::npos);
  const std::string sparse = dom.substr(chart, dom.find("class=\"chart", chart + 1) - chart);
  std::smatch over, line;
  ASSERT_TRUE(std::regex_search(sparse, over, std::regex("class=\"u-over\" style=\"([^\"]*)\"")));
  ASSERT_TRUE(std::regex_search(
      sparse, line,
      std::regex(
          "class=\"change-point\" data-x=\"(\\d+)\" data-kind=\"change\"[^>]*style=\"([^\"]*)\"")))
      << sparse;
  EXPECT_EQ(std::stoul(line[1]), kStep);
  const double width = Px(over[1], "width"), left = Px(line[2], "left");
  EXPECT_NEAR(left, (kStep + 0.5) / kCommits * width, 1.0) << line[0] << " in " << over[0];
  EXPECT_EQ(count("data-kind=\"change\""), 1u);
  EXPECT_EQ(count("data-kind=\"counts\""), 1u);
  EXPECT_NE(dom.find("data-x=\"20\" data-kind=\"counts\""), std::string::npos);
  fs::remove_all(store);
}

// A mouse moving onto the sparse chart, {} / {} of the way across.
constexpr const char* kHover = R"(<script>
var over = document.querySelector('.chart.timed[data-cell="ds/sparse/t2"] .u-over');
var r = over.getBoundingClientRect();
over.dispatchEvent(new MouseEvent('mousemove', {{bubbles: true,
  clientX: r.left + r.width * {} / {}, clientY: r.top + r.height / 2}}));
</script>)";

// Hovering commit 10 of the sparse chart (a mouse event the test adds to a copy of the page)
// shows that commit, when it was measured, on which machine, and its figures.
TEST(HistoryPage, HoveringAPointShowsItsCommitAndMachine) {
#if !SPARSEBENCH_BROWSER_TESTS
  GTEST_SKIP() << "no browser test in this build (sanitizers or qemu)";
#endif
  const std::string chromium = Browser();
  if (chromium.empty()) GTEST_SKIP() << "no Chromium on PATH (tools/setup installs Debian's)";
  const fs::path store = SyntheticStore();
  std::string html = PageHtml(PageOf(store), "now");
  html.insert(html.rfind("</body>"), fmt::format(kHover, kStep + 0.5, kCommits));
  std::ofstream(store / "hover.html") << html;
  const auto [r, dom, log] = Open(chromium, store / "hover.html");
  ASSERT_TRUE(r.ok()) << r.Describe() << "\n" << log;
  EXPECT_EQ(log.find(":CONSOLE"), std::string::npos) << log;
  const size_t tip = dom.find("<div class=\"tooltip\" style=\"display: block;");
  ASSERT_NE(tip, std::string::npos) << "no tooltip shown";
  const std::string shown = dom.substr(tip, 400);
  EXPECT_NE(shown.find("<div class=\"subject\">c0ffee0a "), std::string::npos) << shown;
  EXPECT_NE(
      shown.find("committed 2026-12-01 · measured 2026-12-02 00:10 on Test CPU, 2 cores [m1]"),
      std::string::npos)
      << shown;
  EXPECT_NE(shown.find("over 4 repeats"), std::string::npos) << shown;
  fs::remove_all(store);
}

}  // namespace
}  // namespace sparsebench
