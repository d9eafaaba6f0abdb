// history add, show, check, annotate: results across commits (harness/history/).
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <tuple>

#include "datasets/data_error.h"
#include "harness/cli/commands.h"
#include "harness/history/check.h"
#include "harness/history/git_commit.h"
#include "harness/history/page_html.h"
#include "harness/history/show.h"

namespace sparsebench::cli {
namespace {

constexpr const char* kDefaultStore = "results/history";

std::string Today() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

struct AddOptions {
  std::string run_dir, store = kDefaultStore, repo = ".";
};

void AddAdd(CLI::App& history, const EngineRegistry& engines) {
  auto o = std::make_shared<AddOptions>();
  CLI::App* cmd = history.add_subcommand(
      "add", "Append a run's cells to the history of its machine, at the commit it measured");
  cmd->add_option("run_dir", o->run_dir, "Run directory (sparsebench run --out)")->required();
  cmd->add_option("--store", o->store, "History directory")->capture_default_str();
  cmd->add_option("--repo", o->repo, "Git repository of the commit")->capture_default_str();
  cmd->callback([o, &engines] {
    const CommitInfo commit = GitCommit(o->repo, CommitOfRun(o->run_dir));
    const std::vector<HistoryRecord> records =
        RecordsOfRun(o->run_dir, commit, engines, /*allow_dirty=*/false);
    const HistoryStore store(o->store);
    std::set<std::tuple<std::string, std::string, std::string>> held;
    for (const HistoryRecord& r : store.Records(records.front().machine))
      held.insert({r.commit, r.cell, r.run_date});
    for (const HistoryRecord& r : records) {
      if (held.contains({r.commit, r.cell, r.run_date})) {
        throw DataError(
            o->run_dir, 0,
            "this run is in the history already (" + r.cell + " at " + r.run_date + ")");
      }
    }
    store.Append(records);
    fmt::print("{} cell(s) of {} added to {}/{}.jsonl ({})\n", records.size(),
               commit.commit.substr(0, 8), o->store, records.front().machine,
               records.front().machine_name);
  });
}

void AddShow(CLI::App& history, NumberOptions& numbers) {
  auto o = std::make_shared<std::pair<std::string, ShowOptions>>(kDefaultStore, ShowOptions{});
  CLI::App* cmd = history.add_subcommand(
      "show", "Each cell's series per machine: sparklines, change points, exact count changes");
  cmd->add_option("--store", o->first, "History directory")->capture_default_str();
  cmd->add_option("--machine", o->second.machine, "Only this machine (its key, the file's name)");
  cmd->add_option("--cell", o->second.cell, "Only cells matching this glob (dataset/engine/tN)")
      ->capture_default_str();
  numbers.Add(*cmd, "--last", o->second.last, {1, 1000000}, "Points drawn in each sparkline");
  cmd->callback([o] { fmt::print("{}", ShowText(HistoryStore(o->first), o->second)); });
}

struct CheckCommand {
  std::vector<std::string> run_dirs;
  std::string store = kDefaultStore, repo = ".";
  CheckOptions options;
};

// Every run directory's records at its commit (parent and date from git where it can say).
std::vector<HistoryRecord> RecordsToCheck(const CheckCommand& c, const EngineRegistry& engines) {
  std::vector<HistoryRecord> all;
  for (const std::string& dir : c.run_dirs) {
    CommitInfo commit{CommitOfRun(dir), "", ""};
    try {
      commit = GitCommit(c.repo, commit.commit);
    } catch (const DataError& e) {
      fmt::print(stderr, "note: {}; the history's latest point stands in for the parent\n",
                 e.what());
    }
    for (HistoryRecord& r : RecordsOfRun(dir, commit, engines, /*allow_dirty=*/true))
      all.push_back(std::move(r));
  }
  return all;
}

void AddCheck(CLI::App& history, NumberOptions& numbers, const EngineRegistry& engines) {
  auto c = std::make_shared<CheckCommand>();
  CLI::App* cmd = history.add_subcommand(
      "check",
      "Check runs of one commit against the history: exit 0 ok, 1 regression, 2 suspect "
      "(measure again), 3 error");
  cmd->add_option(
         "run_dirs", c->run_dirs,
         "Run directories of one commit (their repeats pooled; more than one: measured again)")
      ->required();
  cmd->add_option("--store", c->store, "History directory")->capture_default_str();
  cmd->add_option("--repo", c->repo, "Git repository of the commit")->capture_default_str();
  CheckOptions& check = c->options;
  const NumberRange<double> percent{0, kMaxSlowdownPercent};
  numbers
      .AddPattern(
          *cmd, "--max-slowdown",
          [&check, percent](const std::string& text) {
            check.max_slowdown = ParsePercent(text, "--max-slowdown", percent);
          },
          percent, "{}%", "PERCENT",
          "Smallest slowdown that can fail, e.g. 10% [" + percent.Describe() + ", % optional]")
      ->default_str("10%");
  numbers.Add(*cmd, "--max-metric-drop", check.max_metric_drop, {0, 100},
              "Largest allowed metric drop in percentage points");
  cmd->callback([c, &engines] {
    try {
      c->options.measured_again = c->run_dirs.size() > 1;
      const CheckResult result =
          CheckRecords(RecordsToCheck(*c, engines), HistoryStore(c->store), c->options);
      fmt::print("{}", CheckText(result));
      if (result.ExitCode() != 0) throw ExitWith{result.ExitCode(), ""};
    } catch (const ExitWith&) {
      throw;
    } catch (const std::exception& e) {
      throw ExitWith{kHistoryCheckError, e.what()};
    }
  });
}

struct ReportCommand {
  std::string html_dir, markdown, store = kDefaultStore, repo = ".";
  PageOptions options;
};

// Each commit's subject from git; none (and a note) where git cannot say.
SubjectsOf GitSubjects(const std::string& repo) {
  return [repo](const std::vector<std::string>& commits) {
    try {
      return CommitSubjects(repo, commits);
    } catch (const DataError& e) {
      fmt::print(stderr, "note: {}; the page shows no commit subjects\n", e.what());
      return std::map<std::string, std::string>{};
    }
  };
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw DataError(path, 0, "cannot write the file");
}

void AddReport(CLI::App& history, const EngineRegistry& engines) {
  auto r = std::make_shared<ReportCommand>();
  CLI::App* cmd = history.add_subcommand(
      "report",
      "The history as one self-contained HTML page (DIR/index.html, with DIR/summary.md) or as "
      "markdown for a pull request");
  cmd->add_option("--html", r->html_dir, "Write DIR/index.html and DIR/summary.md");
  cmd->add_option("--markdown", r->markdown, "Write the markdown summary here (- for stdout)");
  cmd->add_option("--store", r->store, "History directory")->capture_default_str();
  cmd->add_option("--repo", r->repo, "Git repository (commit subjects)")->capture_default_str();
  cmd->add_option("--machine", r->options.machine, "Only this machine (its key)");
  cmd->add_option("--cell", r->options.cell, "Only cells matching this glob (dataset/engine/tN)")
      ->capture_default_str();
  cmd->callback([r, &engines] {
    const HistoryStore store(r->store);
    const HistoryPage page = BuildPage(store, engines, GitSubjects(r->repo), r->options);
    if (page.machines.empty()) throw DataError(r->store, 0, "no history to report");
    namespace fs = std::filesystem;
    std::string markdown = r->markdown, link;
    if (!r->html_dir.empty()) {
      fs::create_directories(r->html_dir);
      const fs::path html = fs::path(r->html_dir) / "index.html";
      WriteText(html.string(), PageHtml(page, Today()));
      if (markdown.empty()) markdown = (fs::path(r->html_dir) / "summary.md").string();
      // The summary's link to the page, from wherever the summary is.
      link = markdown == "-"
                 ? html.string()
                 : fs::relative(fs::absolute(html), fs::absolute(markdown).parent_path()).string();
      fmt::print("{}\n", html.string());
    }
    if (markdown.empty() || markdown == "-") {
      fmt::print("{}", PageMarkdown(page, link));
    } else {
      WriteText(markdown, PageMarkdown(page, link));
      fmt::print("{}\n{}\n", markdown, VerdictLine(page));
    }
  });
}

void AddAnnotate(CLI::App& history) {
  auto a = std::make_shared<std::tuple<Annotation, std::string, std::string>>(Annotation{},
                                                                              kDefaultStore, ".");
  CLI::App* cmd = history.add_subcommand(
      "annotate", "Mark an intended change: from COMMIT on, matching cells start a new segment");
  cmd->add_option("commit", std::get<0>(*a).commit, "The commit (any revision git knows)")
      ->required();
  cmd->add_option("--cell", std::get<0>(*a).cell, "Cells it changed: a glob over dataset/engine/tN")
      ->required();
  cmd->add_option("--reason", std::get<0>(*a).reason, "Why the figures moved")->required();
  cmd->add_option("--store", std::get<1>(*a), "History directory")->capture_default_str();
  cmd->add_option("--repo", std::get<2>(*a), "Git repository of the commit")->capture_default_str();
  cmd->callback([a] {
    Annotation annotation = std::get<0>(*a);
    annotation.commit = GitCommit(std::get<2>(*a), annotation.commit).commit;
    annotation.date = Today();
    HistoryStore(std::get<1>(*a)).Append(annotation);
    fmt::print("{} annotated for {}: {}\n", annotation.commit.substr(0, 8), annotation.cell,
               annotation.reason);
  });
}

}  // namespace

void AddHistoryCommands(CLI::App& app, NumberOptions& numbers, const EngineRegistry& engines) {
  CLI::App* history = app.add_subcommand(
      "history", "Results across commits: one series per cell and machine (results/history/)");
  history->require_subcommand(1);
  AddAdd(*history, engines);
  AddShow(*history, numbers);
  AddCheck(*history, numbers, engines);
  AddAnnotate(*history);
  AddReport(*history, engines);
}

}  // namespace sparsebench::cli
