#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "datasets/dataset.h"

namespace sparsebench {

// The data an external engine reads (tools/engines/README.md, "Data"): a header line
//   {"format": "sparsebench-rows", "version": 1, "rows": N, "features": D, "labels": L,
//    "text": true|false, "has_labels": true|false}
// then one JSON object a row: "ids" and "values" (the features, 0-based; on text data the
// shared featurizer's ids), "labels" (0-based) when has_labels, "text" (raw) when text.
void WriteRowsFile(const Dataset& data, bool with_labels, const std::string& path);

// The labels file of protocol version 2 (tools/engines/README.md, "Data"), as text: a header
//   {"format": "sparsebench-labels", "version": 1, "rows": N, "labels": L}
// then one JSON array of 0-based label ids a row.
std::string LabelsFileText(const Dataset& data);

// Row `row` as WriteRowsFile writes it (a JSON object's text), without its labels.
std::string RowWithoutLabels(const Dataset& data, size_t row);

}  // namespace sparsebench
