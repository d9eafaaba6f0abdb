#include "harness/record/cell_json.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <stdexcept>

#include "datasets/data_error.h"
#include "harness/record/csv.h"
#include "harness/record/files.h"
#include "harness/record/target_rule.h"

namespace sparsebench {
namespace {

constexpr size_t kMaxCellFileBytes = 64u << 20;

nlohmann::json Dump(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::optional<double> PointField(const nlohmann::json& v) {
  return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
}

class Reader {
 public:
  Reader(const nlohmann::json& object, const std::string& file, uint64_t line)
      : object_(object), file_(file), line_(line) {}

  [[noreturn]] void Fail(const std::string& reason) const {
    throw DataError(file_, line_, "not a cell result: " + reason);
  }

  // The column's value, or nothing when the key is absent or null.
  const nlohmann::json* Find(std::string_view key) const {
    const auto it = object_.find(std::string(key));
    return it == object_.end() || it->is_null() ? nullptr : &*it;
  }

  void Read(CellResult& r, const Column& c) const {
    const auto it = object_.find(std::string(c.name));
    if (it == object_.end()) return;
    std::visit([&](auto member) { Set(r.*member, *it, c); }, c.member);
  }

 private:
  void Set(std::string& to, const nlohmann::json& v, const Column& c) const {
    if (!v.is_string()) Fail(fmt::format("'{}' must be a string", c.name));
    to = v.get<std::string>();
  }
  void Set(CellStatus& to, const nlohmann::json& v, const Column& c) const {
    std::string text;
    Set(text, v, c);
    const auto status = ParseCellStatus(text);
    if (!status) Fail(fmt::format("'{}' is '{}', not one of {}", c.name, text, CellStatusTexts()));
    to = *status;
  }
  void Set(StopReason& to, const nlohmann::json& v, const Column& c) const {
    std::string text;
    Set(text, v, c);
    const auto reason = ParseStopReason(text);
    if (!reason) Fail(fmt::format("'{}' is '{}', not one of {}", c.name, text, StopReasonTexts()));
    to = *reason;
  }
  void Set(std::optional<double>& to, const nlohmann::json& v, const Column& c) const {
    if (v.is_null()) return;
    if (!v.is_number()) Fail(fmt::format("'{}' must be a number", c.name));
    to = v.get<double>();
  }
  template <typename Int>
  void Set(std::optional<Int>& to, const nlohmann::json& v, const Column& c) const {
    if (v.is_null()) return;
    if (!v.is_number()) Fail(fmt::format("'{}' must be a number", c.name));
    if (v.is_number_unsigned() && (c.max == 0 || v.get<uint64_t>() <= c.max)) {
      to = static_cast<Int>(v.get<uint64_t>());
      return;
    }
    const double d = v.get<double>();
    const double max = c.max > 0 ? c.max : 1.8e19;
    if (!(d >= 0 && d <= max && d == std::floor(d))) {
      Fail(fmt::format("'{}' must be a whole number from 0 to {}", c.name, MaxText(c)));
    }
    to = static_cast<Int>(d);
  }

  const nlohmann::json& object_;
  const std::string& file_;
  uint64_t line_;
};

Curve ReadCurve(const nlohmann::json& v, const Reader& reader) {
  if (!v.is_array()) reader.Fail("'curve' must be a list of points");
  Curve curve;
  for (const auto& point : v) {
    if (!point.is_array() || point.size() < 3)
      reader.Fail("a curve point must be a list [seconds, epoch, value, ...]");
    for (const auto& x : point) {
      if (!x.is_number() && !x.is_null())
        reader.Fail("a curve point holds something other than numbers");
    }
    auto at = [&](size_t i) { return i < point.size() ? PointField(point[i]) : std::nullopt; };
    curve.push_back({at(0), at(1), at(2), at(3), at(4)});
  }
  return curve;
}

}  // namespace

nlohmann::json ToJson(const CellResult& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const Column& c : Columns()) {
    std::visit(
        [&](auto member) {
          const auto& v = r.*member;
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            if (!v.empty()) j[std::string(c.name)] = v;
          } else if constexpr (std::is_enum_v<T>) {
            if (!Text(v).empty()) j[std::string(c.name)] = Text(v);
          } else if (v) {
            j[std::string(c.name)] = *v;
          }
        },
        c.member);
  }
  nlohmann::json curve = nlohmann::json::array();
  for (const CurvePoint& p : r.curve) {
    curve.push_back({Dump(p.seconds), Dump(p.epoch), Dump(p.value), Dump(p.active_recall_at_5),
                     Dump(p.label_recall)});
  }
  j["curve"] = curve;
  j["epoch_details"] = r.epoch_details;
  if (!r.context.empty()) j["context"] = r.context;
  return j;
}

CellResult FromJson(const nlohmann::json& object, const std::string& file, uint64_t line) {
  const Reader reader(object, file, line);
  if (!object.is_object()) reader.Fail("not a JSON object");
  CellResult r;
  for (const Column& c : Columns()) reader.Read(r, c);
  if (!r.target_rule.empty()) {
    try {
      TargetRule::Parse(r.target_rule);
    } catch (const std::invalid_argument& e) {
      reader.Fail(e.what());
    }
  }
  if (const nlohmann::json* curve = reader.Find("curve")) r.curve = ReadCurve(*curve, reader);
  if (const nlohmann::json* details = reader.Find("epoch_details")) {
    if (!details->is_array()) reader.Fail("'epoch_details' must be a list");
    r.epoch_details = *details;
  }
  if (const nlohmann::json* context = reader.Find("context")) {
    if (!context->is_object()) reader.Fail("'context' must be an object");
    for (const auto& [key, value] : context->items()) {
      if (!value.is_string()) reader.Fail("'context' must map names to text");
      r.context[key] = value.get<std::string>();
    }
  }
  return r;
}

void WriteChildLine(const CellResult& r, std::FILE* out) {
  fmt::print(out, "{}\n", ToJson(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  std::fflush(out);
}

std::optional<CellResult> ReadChildLine(const std::string& stdout_path) {
  std::ifstream in(stdout_path);
  std::string line, json_line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.front() == '{') json_line = line;
  }
  const nlohmann::json parsed = nlohmann::json::parse(json_line, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return FromJson(parsed, stdout_path, 0);
}

CellResult WriteCellFile(const CellResult& r, const std::string& path) {
  const std::string text =
      ToJson(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  WriteFileAtomically(path, text);
  return ParseCellFile(text, path);
}

CellResult ParseCellFile(const std::string& text, const std::string& path) {
  const nlohmann::json object = nlohmann::json::parse(text, nullptr, false);
  if (object.is_discarded()) throw DataError(path, 1, "not a cell result (bad JSON)");
  return FromJson(object, path, 1);
}

CellResult ReadCellFile(const std::string& path) {
  return ParseCellFile(ReadRegularFile(path, kMaxCellFileBytes, "a cell result"), path);
}

}  // namespace sparsebench
