#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace sparsebench {

// How a cell ended: ok, or why it has no figures. kNone: a record that gave no status (a
// child's result line without one is an error).
enum class CellStatus { kNone, kOk, kError, kTimeout, kOom, kCrash, kInvalid, kProtocolError };

// What ended training: the engine's own epochs, the training budget, or the plateau rule.
enum class StopReason { kEpochs, kBudget, kPlateau };

// Each as the files write it ("" for kNone and kEpochs), from one table (cell_status.cc).
std::string_view Text(CellStatus status);
std::string_view Text(StopReason reason);

// The value a file's text names; nothing when it names none.
std::optional<CellStatus> ParseCellStatus(std::string_view text);
std::optional<StopReason> ParseStopReason(std::string_view text);

// Every text a file may hold, for an error that refuses another: "ok, error, ...".
std::string CellStatusTexts();
std::string StopReasonTexts();

inline std::ostream& operator<<(std::ostream& out, CellStatus s) { return out << Text(s); }
inline std::ostream& operator<<(std::ostream& out, StopReason s) { return out << Text(s); }

}  // namespace sparsebench
