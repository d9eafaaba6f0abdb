#include "harness/report/report_external.h"

#include <fmt/format.h>

#include <cstdlib>

#include "harness/report/prose.h"

namespace sparsebench {
namespace {

std::string Get(const Group& g, const std::string& key) {
  const auto it = g.engine_context.find("engine_" + key);
  return it == g.engine_context.end() ? std::string() : it->second;
}

// A CPU counter as the table prints it; "—" for a row that predates the counter.
std::string Cpu(const Group& g, const std::string& phase) {
  const std::string value = Get(g, "cpu_" + phase + "_seconds");
  return value.empty() ? "—" : fmt::format("{:.2f}", std::strtod(value.c_str(), nullptr));
}

std::string WithRows(const Group& g, const std::string& cpu, const std::string& rows) {
  const std::string n = Get(g, rows);
  return n.empty() ? cpu : fmt::format("{} ({} rows)", cpu, n);
}

std::string EngineMemory(const Group& g) {
  const std::string mb = Get(g, "peak_memory_mb");
  return mb.empty() ? "—" : fmt::format("{:.0f}", std::strtod(mb.c_str(), nullptr));
}

}  // namespace

std::string ExternalCpu(const DatasetGroups& d) {
  std::string table, flags;
  for (const Group& g : d.groups) {
    if (!g.external || g.engine_context.empty()) continue;
    const std::string protocol = Get(g, "protocol");
    table += fmt::format(
        "| `{}` ⇄ | {} | {} | {} | {} | {} | {} | {} | {} |\n", g.engine,
        protocol.empty() ? "1: labels given at load" : protocol, Cpu(g, "startup"), Cpu(g, "load"),
        Cpu(g, "train"), WithRows(g, Cpu(g, "pause"), "pause_rows"),
        WithRows(g, Cpu(g, "after_predict"), "after_rows"), Cpu(g, "after"), EngineMemory(g));
    for (const std::string& flag : g.off_clock)
      flags += fmt::format("⚠ `{}` did work off the clock that looks like learning, {}.\n\n",
                           g.engine, flag);
  }
  if (table.empty()) return "";
  return prose::Prose(prose::kExternalCpu) +
         "\n\n"
         "| engine | protocol | startup | load | train (on the clock) | pauses | "
         "test set after done | all after done | engine's peak MB |\n"
         "|---|---|---|---|---|---|---|---|---|\n" +
         table + "\n" + flags;
}

}  // namespace sparsebench
