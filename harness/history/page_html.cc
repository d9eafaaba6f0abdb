#include "harness/history/page_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "harness/history/page_assets.h"
#include "harness/history/series.h"

namespace sparsebench {
namespace {

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// JSON inside a <script> element: "</" would end it.
std::string ScriptSafe(std::string json) {
  for (size_t at = json.find("</"); at != std::string::npos; at = json.find("</", at + 3))
    json.replace(at, 2, "<\\/");
  return json;
}

const char* VerdictClass(int code, bool notes) {
  return code == 1 ? "regression" : code == 2 ? "suspect" : notes ? "note" : "ok";
}

std::string VerdictHtml(const HistoryPage& page) {
  bool notes = false;
  std::string items;
  for (const PageMachine& m : page.machines) {
    for (const Finding& f : m.latest.findings) {
      if (f.verdict == Verdict::kOk || f.verdict == Verdict::kNew) continue;
      notes = notes || f.verdict == Verdict::kNote;
      items += fmt::format("<li><b>{}</b> {} · {} ({}): {}</li>\n", VerdictText(f.verdict),
                           Escape(f.cell), Escape(f.what), Escape(ShortCommit(m.latest.commit)),
                           Escape(f.detail));
    }
  }
  return fmt::format(
      "<div class=\"verdict {}\" id=\"verdict\"><div class=\"headline\">{}</div>\n"
      "<div class=\"note\">The newest commit of each machine checked against the commits before "
      "it, as <code>sparsebench history check</code> checks a run.</div>\n{}</div>\n",
      VerdictClass(page.ExitCode(), notes), Escape(VerdictLine(page)),
      items.empty() ? "" : "<ul>\n" + items + "</ul>");
}

std::string Spread(double mean, double spread) {
  return spread > 0 ? fmt::format("{:.4g} ± {:.2g}", mean, spread) : fmt::format("{:.4g}", mean);
}

std::vector<PageChange> NewestFirst(std::vector<PageChange> changes) {
  std::stable_sort(changes.begin(), changes.end(), [](const PageChange& a, const PageChange& b) {
    return std::tie(a.machine, b.x) < std::tie(b.machine, a.x);
  });
  return changes;
}

std::string ChangesHtml(const HistoryPage& page) {
  if (page.changes.empty()) {
    return "<p id=\"changes\">No change point in any series, and no annotated or new-settings "
           "segment start.</p>\n";
  }
  std::string html =
      "<table id=\"changes\"><tr><th>cell</th><th>machine</th><th>series</th><th>before → after "
      "(mean ± sd of the segments' points)</th><th>change</th><th>commits</th><th>p</th>"
      "<th>status</th></tr>\n";
  for (const PageChange& c : NewestFirst(page.changes)) {
    const double change = c.change();
    html += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{} → {}</td>"
        "<td class=\"num change\">{:+.1f}%</td><td><code>{}..{}</code></td><td class=\"num\">{}"
        "</td><td>{}</td></tr>\n",
        change > 0 ? "slower" : "faster", Escape(c.cell), Escape(c.machine), Escape(c.measure),
        Spread(c.before, c.spread_before), Spread(c.after, c.spread_after), 100 * change,
        ShortCommit(c.from_commit), ShortCommit(c.to_commit),
        std::isfinite(c.p) ? fmt::format("{:.1e}", c.p) : "—",
        c.acknowledged ? fmt::format("<span class=\"badge acknowledged\">acknowledged</span> {}",
                                     Escape(c.reason))
                       : fmt::format("<span class=\"badge new\">new</span> {}", Escape(c.kind)));
  }
  return html +
         "</table>\n<p class=\"note\">For a ratio to the reference engine, higher is "
         "slower; \"new\" is a change point nobody has annotated (<code>sparsebench "
         "history annotate</code>).</p>\n";
}

std::string CountChangesHtml(const PageMachine& m) {
  std::string rows;
  for (const PageCell& c : m.cells) {
    for (const PageMark& k : c.count_marks) {
      rows += fmt::format("<tr><td>{}</td><td><code>{}</code></td><td>{}</td></tr>\n", Escape(c.id),
                          ShortCommit(k.commit), Escape(k.title));
    }
  }
  return rows.empty()
             ? "<p class=\"note\">No exact count changed between commits built alike.</p>\n"
             : "<table><tr><th>cell</th><th>commit</th><th>change</th></tr>\n" + rows +
                   "</table>\n";
}

constexpr const char* kKey =
    "<p class=\"key note\"><i style=\"border-top:2px solid #1f6fb4\"></i>each cell's training "
    "time ÷ the reference engine's in the same run (the reference itself: its seconds), the "
    "median of a commit's repeats, the band their range <i style=\"border-top:2px dashed "
    "#57606a\"></i>the fitted segments <i style=\"border-top:2px solid #d9730d\"></i>speed-up in "
    "training time over the fastest dense row of the same run (right axis; band: range over "
    "repeats) <i style=\"border-top:2px dashed #c0392b\"></i>a change point found <i "
    "style=\"border-top:2px dashed #6f42c1\"></i>a segment start an annotation or new settings "
    "forced. Hover a point for its commit.</p>\n";

std::string MachinesHtml(const HistoryPage& page) {
  std::string timed, counts;
  for (const PageMachine& m : page.machines) {
    const std::string key = Escape(m.key);
    timed += fmt::format(
        "<h2>{} <span class=\"meta\">({})</span></h2>\n<p class=\"meta\">{} commits, {} to {}; "
        "{} cells.</p>\n{}<div class=\"charts\" id=\"timed-{}\"></div>\n",
        Escape(m.name), key, m.commits.size(), ShortCommit(m.commits.front().id),
        ShortCommit(m.commits.back().id), m.cells.size(), kKey, key);
    counts += fmt::format("<h3>{} ({})</h3>\n{}<div class=\"charts\" id=\"counts-{}\"></div>\n",
                          Escape(m.name), key, CountChangesHtml(m), key);
  }
  return timed +
         "<h2>Exact work counts</h2>\n<p class=\"note\">Our engine counts its work "
         "exactly at a seed (engine/README.md): any change is a change in what it "
         "computes, not noise. Each line is a counter per sample (the median over "
         "seeds) ÷ its first point; red dashed lines mark the commits where the counts "
         "at a seed changed. Hover for the values.</p>\n" +
         counts;
}

}  // namespace

std::string VerdictLine(const HistoryPage& page) {
  if (page.machines.empty()) return "No history to check.";
  std::vector<std::string> parts;
  for (const PageMachine& m : page.machines) {
    size_t regressions = 0, suspects = 0;
    for (const Finding& f : m.latest.findings) {
      regressions += f.verdict == Verdict::kRegression;
      suspects += f.verdict == Verdict::kSuspect;
    }
    parts.push_back(fmt::format(
        "{} on {}: {}", ShortCommit(m.latest.commit), m.key,
        regressions ? fmt::format("{} regression(s)", regressions)
        : suspects  ? fmt::format("{} suspect finding(s), to be measured again", suspects)
                    : "no regression"));
  }
  return fmt::format("Latest commit {}.", fmt::join(parts, "; "));
}

std::string PageHtml(const HistoryPage& page, const std::string& generated) {
  size_t cells = 0;
  for (const PageMachine& m : page.machines) cells += m.cells.size();
  return fmt::format(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>SparseBench history</title>\n<style>{}</style>\n<style>{}</style>\n"
      "<script>window.addEventListener('error', function (e) {{ var l = "
      "document.getElementById('page-errors'); if (!l) return; var i = "
      "document.createElement('li'); i.textContent = 'script error: ' + e.message; "
      "l.appendChild(i); l.hidden = false; }});</script>\n</head><body>\n"
      "<h1>SparseBench history</h1>\n<p class=\"meta\">{} · {} machine(s), {} cell series · "
      "written {} · charts drawn with uPlot {} (MIT)</p>\n<ul id=\"page-errors\" hidden></ul>\n"
      "{}<h2>Changes</h2>\n{}{}"
      "<script type=\"application/json\" id=\"history-data\">{}</script>\n"
      "<script>{}</script>\n<script>{}</script>\n</body></html>\n",
      page_assets::kUplotCss, page_assets::kHistoryCss, Escape(page.store), page.machines.size(),
      cells, Escape(generated), page_assets::kUplotVersion, VerdictHtml(page), ChangesHtml(page),
      MachinesHtml(page), ScriptSafe(PageChartsJson(page)), page_assets::kUplotJs,
      page_assets::kHistoryJs);
}

}  // namespace sparsebench
