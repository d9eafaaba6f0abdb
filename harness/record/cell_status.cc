#include "harness/record/cell_status.h"

#include <array>
#include <utility>

namespace sparsebench {
namespace {

constexpr std::array<std::pair<CellStatus, std::string_view>, 8> kStatuses = {{
    {CellStatus::kNone, ""},
    {CellStatus::kOk, "ok"},
    {CellStatus::kError, "error"},
    {CellStatus::kTimeout, "timeout"},
    {CellStatus::kOom, "oom"},
    {CellStatus::kCrash, "crash"},
    {CellStatus::kInvalid, "invalid"},
    {CellStatus::kProtocolError, "protocol_error"},
}};

constexpr std::array<std::pair<StopReason, std::string_view>, 3> kStopReasons = {{
    {StopReason::kEpochs, ""},
    {StopReason::kBudget, "budget"},
    {StopReason::kPlateau, "plateau"},
}};

template <typename Table, typename Value>
std::string_view TextIn(const Table& table, Value value) {
  for (const auto& [v, text] : table) {
    if (v == value) return text;
  }
  return "?";
}

template <typename Table>
auto ValueIn(const Table& table, std::string_view text)
    -> std::optional<typename Table::value_type::first_type> {
  for (const auto& [v, t] : table) {
    if (t == text) return v;
  }
  return std::nullopt;
}

template <typename Table>
std::string TextsIn(const Table& table) {
  std::string texts;
  for (const auto& [v, text] : table) {
    if (!text.empty()) texts += (texts.empty() ? "" : ", ") + std::string(text);
  }
  return texts;
}

}  // namespace

std::string_view Text(CellStatus status) { return TextIn(kStatuses, status); }
std::string_view Text(StopReason reason) { return TextIn(kStopReasons, reason); }
std::optional<CellStatus> ParseCellStatus(std::string_view text) {
  return ValueIn(kStatuses, text);
}
std::optional<StopReason> ParseStopReason(std::string_view text) {
  return ValueIn(kStopReasons, text);
}
std::string CellStatusTexts() { return TextsIn(kStatuses); }
std::string StopReasonTexts() { return TextsIn(kStopReasons); }

}  // namespace sparsebench
